"""Ids are read once (issue 27): ``rankmetrics evaluate --long`` keeps a
text table's query ids exactly as written, refuses a missing one with the
file, the column and the row, and groups a CSV table and its Parquet copy
into the same queries -- read whole or in chunks.  (TREC files:
tests/test_trec.py.)

The reference is a slow per-query loop over the rows written in the test
(a dict from the id, as a string, to its rows), not the package's own
grouping."""

import csv
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._cli import main

# Ids that a type-guessing reader merges or turns into NA: each is its own
# query.  (No id here is blank: those are errors, below.)
LOOK_ALIKES = [
    "007", "7", "7.0", "07", "+7", " 7", "7 ", "1.0", "1", "1e3", "1000",
    "-0", "0", "NA", "nan", "NaN", "None", "null", "N/A", "#N/A", "TRUE",
    "true", "x",
]  # fmt: skip


def _write_csv(path, rows, sep=","):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, delimiter=sep, lineterminator="\n")
        writer.writerow(["user", "click", "score"])
        writer.writerows(rows)


def _write_parquet(path, rows, id_type=None):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    user, click, score = (list(c) for c in zip(*rows, strict=True))
    table = pa.table(
        {
            "user": pa.array(user, type=id_type),
            "click": pa.array(click, type=pa.int64()),
            "score": pa.array(score, type=pa.float64()),
        }
    )
    pq.write_table(table, path, row_group_size=3)  # several row groups


def _evaluate(capsys, path, *extra):
    argv = ["evaluate", "--long", str(path), "--query-col", "user"]
    argv += ["--label-col", "click", "--score-col", "score", "--format", "json"]
    code = main([*argv, "-q", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def _per_query(capsys, path, *measures, chunk_rows=None):
    """{query label as printed: {measure: value}} and the summary."""
    extra = [x for m in measures for x in ("-m", m)]
    if chunk_rows is not None:
        extra += ["--chunk-rows", str(chunk_rows)]
    code, out, err = _evaluate(capsys, path, *extra)
    assert code == 0, err
    (result,) = json.loads(out).values()
    return result["queries"], result["all"]


def _reference_gauc(rows):
    """Per query (keyed by the id as written) the ROC AUC of its rows, None
    when one class is missing; GAUC = the mean weighted by rows."""
    by_query = {}
    for user, click, score in rows:
        by_query.setdefault(str(user), []).append((click, score))
    per_query, num, den = {}, 0.0, 0.0
    for user, items in by_query.items():
        y = [c for c, _ in items]
        s = [x for _, x in items]
        if 0 < sum(y) < len(y):
            per_query[user] = roc_auc_score(y, s)
            num += len(items) * per_query[user]
            den += len(items)
        else:
            per_query[user] = None
    return per_query, num / den


def _look_alike_rows(seed):
    """Rows of every look-alike id, shuffled (ids interleaved), with ties."""
    rng = np.random.default_rng(seed)
    rows = []
    for user in LOOK_ALIKES:
        n = int(rng.integers(2, 6))
        clicks = rng.integers(0, 2, size=n)
        clicks[0], clicks[1] = 1, 0  # both classes: every AUC defined
        scores = np.round(rng.random(n), 1)  # coarse: ties
        rows += [(user, int(c), float(s)) for c, s in zip(clicks, scores, strict=True)]
    return [rows[i] for i in rng.permutation(len(rows))]


# ---------------------------------------------------------------------------
# The case, by hand
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("chunk_rows", [None, 1])
def test_007_and_7_are_two_users(tmp_path, capsys, chunk_rows):
    # user 007: clicked item scored .9 above the unclicked .1 -> AUC 1;
    # user 7: clicked .2 below the unclicked .8 -> AUC 0;
    # GAUC = (2 * 1 + 2 * 0) / 4 = 0.5.  Read as the number 7, the four
    # rows were one user: positives {.9, .2} against negatives {.1, .8},
    # 3 of the 4 pairs in order -> 0.75.
    rows = [("007", 1, 0.9), ("7", 1, 0.2), ("007", 0, 0.1), ("7", 0, 0.8)]
    if chunk_rows is not None:  # one row at a time: rows grouped by user
        rows = [rows[0], rows[2], rows[1], rows[3]]
    path = tmp_path / "clicks.csv"
    _write_csv(path, rows)
    queries, summary = _per_query(capsys, path, "gauc", chunk_rows=chunk_rows)
    assert summary["gauc"] == 0.5
    assert queries == {"007": {"gauc": 1.0}, "7": {"gauc": 0.0}}


# ---------------------------------------------------------------------------
# Look-alike ids in text: each its own query, labelled as written
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("chunk_rows", [None, 4])
@pytest.mark.parametrize("ext, sep", [("csv", ","), ("tsv", "\t")])
@pytest.mark.parametrize("seed", [0, 1])
def test_look_alike_text_ids_stay_as_written(
    tmp_path, capsys, ext, sep, chunk_rows, seed
):
    rows = _look_alike_rows(seed)
    if chunk_rows is not None:  # the chunked reader needs rows grouped by query
        rows.sort(key=lambda r: r[0])
    path = tmp_path / f"clicks.{ext}"
    _write_csv(path, rows, sep)
    queries, summary = _per_query(capsys, path, "gauc", chunk_rows=chunk_rows)
    want, want_gauc = _reference_gauc(rows)
    assert set(queries) == set(LOOK_ALIKES)
    assert {q: v["gauc"] for q, v in queries.items()} == pytest.approx(want)
    assert summary["gauc"] == pytest.approx(want_gauc)
    # the Python API given the same strings agrees
    user, click, score = (np.array(c, dtype=object) for c in zip(*rows, strict=True))
    api = srm.group_auc_score(click.astype(int), score.astype(float), query_id=user)
    assert summary["gauc"] == pytest.approx(api)


def test_quoted_ids_keep_their_spaces_and_separators(tmp_path, capsys):
    # CSV quoting: a quoted field's content is the id (its spaces and a
    # comma inside included); the quotes are not part of it
    text = (
        "user,click,score\n"
        '" 7",1,0.9\n" 7",0,0.1\n'  # ' 7' with a leading space
        '"7",1,0.2\n7,0,0.8\n'  # '7', quoted or not: one user
        '"a,b",1,0.5\n"a,b",0,0.6\n'
    )
    path = tmp_path / "quoted.csv"
    path.write_text(text)
    queries, _ = _per_query(capsys, path, "gauc")
    # ' 7': 1 (.9 > .1); '7': 0 (.2 < .8); 'a,b': 0 (.5 < .6)
    assert queries == {" 7": {"gauc": 1.0}, "7": {"gauc": 0.0}, "a,b": {"gauc": 0.0}}


@settings(max_examples=25, deadline=None)
@given(
    ids=st.lists(
        st.text(
            alphabet=st.sampled_from(list("07. -+eNAn,\"'x")), min_size=1, max_size=4
        ).filter(lambda s: s.strip() != ""),
        min_size=1,
        max_size=6,
        unique=True,
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_property_any_written_id_is_its_own_query(tmp_path_factory, ids, seed):
    # any non-blank text is an id, written through the csv module (which
    # quotes what needs quoting) and read back exactly
    rng = np.random.default_rng(seed)
    rows = []
    for user in ids:
        rows += [(user, 1, float(rng.random())), (user, 0, float(rng.random()))]
    rows = [rows[i] for i in rng.permutation(len(rows))]
    path = tmp_path_factory.mktemp("ids") / "t.csv"
    _write_csv(path, rows)
    code = main(
        ["evaluate", "--long", str(path), "--query-col", "user", "--label-col"]
        + ["click", "--score-col", "score", "-m", "gauc", "-q", "--format", "json"]
        + ["--quiet", "--per-query", str(path.with_suffix(".out"))]
    )
    assert code == 0
    with open(path.with_suffix(".out"), newline="", encoding="utf-8") as fh:
        got = {r["user"]: float(r["gauc"]) for r in csv.DictReader(fh)}
    want, _ = _reference_gauc(rows)
    assert got == pytest.approx(want)


# ---------------------------------------------------------------------------
# A missing id: an error naming the file, the column and the first row
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("chunk_rows", [None, 2])
@pytest.mark.parametrize(
    "cell, what",
    [("", "is empty"), ('""', "is empty"), ("   ", "is blank ('   ')")],
)
def test_blank_text_id_is_an_error(tmp_path, capsys, cell, what, chunk_rows):
    # line 1 is the header; the first blank id is on line 5 (the 4th row),
    # in the second chunk when the table is read two rows at a time
    text = "user,click,score\nu1,1,0.9\nu1,0,0.1\nu2,1,0.3\n"
    text += f"{cell},0,0.2\nu3,1,0.5\n,0,0.4\n"
    path = tmp_path / "blank.csv"
    path.write_text(text)
    extra = [] if chunk_rows is None else ["--chunk-rows", str(chunk_rows)]
    code, out, err = _evaluate(capsys, path, *extra)
    assert code == 2 and out == ""
    assert f"blank.csv': column 'user', line 5: the query id {what}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("chunk_rows", [None, 2])
@pytest.mark.parametrize(
    "ids, id_type, what",
    [
        ([1, 1, 2, None, 3], "int64", "is empty"),
        (["a", "a", "b", None, "c"], "string", "is empty"),
        (["a", "a", "b", "", "c"], "string", "is empty"),
        (["a", "a", "b", " ", "c"], "string", "is blank (' ')"),
        ([1.0, 1.0, 2.0, float("nan"), 3.0], "float64", "is NaN (not a number)"),
        ([1.0, 1.0, 2.0, None, 3.0], "float64", "is empty"),
    ],
)
def test_missing_parquet_id_is_an_error(
    tmp_path, capsys, ids, id_type, what, chunk_rows
):
    pa = pytest.importorskip("pyarrow")
    rows = [(u, i % 2, 0.1 * i) for i, u in enumerate(ids)]
    path = tmp_path / "t.parquet"
    _write_parquet(path, rows, getattr(pa, id_type)())
    extra = [] if chunk_rows is None else ["--chunk-rows", str(chunk_rows)]
    code, out, err = _evaluate(capsys, path, *extra)
    assert code == 2 and out == ""
    assert f"t.parquet': column 'user', row 4: the query id {what}" in err


# ---------------------------------------------------------------------------
# CSV and Parquet: the same queries
# ---------------------------------------------------------------------------
def _random_rows(seed, n_users=30):
    rng = np.random.default_rng(seed)
    users = rng.choice(10_000, size=n_users, replace=False)
    rows = []
    for u in users:
        n = int(rng.integers(1, 8))
        for _ in range(n):
            rows.append(
                (int(u), int(rng.random() < 0.4), float(np.round(rng.random(), 1)))
            )
    return [rows[i] for i in rng.permutation(len(rows))]


@pytest.mark.parametrize("chunk_rows", [None, 5])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_csv_and_parquet_copies_give_the_same_queries(
    tmp_path, capsys, seed, chunk_rows
):
    # Parquet keeps its types: an integer column groups by number, the same
    # digits in a CSV table by text -- the same queries either way (digits
    # written plainly name one number each), each labelled as written; a
    # Parquet string column is read as the CSV is.  (The order of the
    # per-query rows follows the ids' type: numbers in numeric order, text
    # in byte order; the values do not depend on it.)
    pa = pytest.importorskip("pyarrow")
    rows = _random_rows(seed)
    if chunk_rows is not None:
        rows.sort(key=lambda r: r[0])
    measures = ("gauc", "ndcg@3", "map@5", "recall@2")
    csv_path = tmp_path / "t.csv"
    _write_csv(csv_path, rows)
    got = {"csv": _per_query(capsys, csv_path, *measures, chunk_rows=chunk_rows)}
    for id_type in (pa.int64(), pa.int32(), pa.string()):
        path = tmp_path / f"t_{id_type}.parquet"
        typed = [(str(u) if id_type == pa.string() else u, c, s) for u, c, s in rows]
        _write_parquet(path, typed, id_type)
        got[str(id_type)] = _per_query(capsys, path, *measures, chunk_rows=chunk_rows)
    queries, summary = got.pop("csv")
    assert set(queries) == {str(u) for u, _, _ in rows}
    for other_queries, other_summary in got.values():
        assert other_queries == queries  # dicts: the same labels and values
        # the same means, summed over the queries in another order
        assert other_summary == pytest.approx(summary, rel=1e-14)
    # the per-query GAUC is the slow reference's
    want, _ = _reference_gauc(rows)
    assert {q: v["gauc"] for q, v in queries.items()} == pytest.approx(want)


def test_text_ids_in_byte_order_parquet_numbers_in_numeric_order(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    rows = [(u, c, 0.5) for u in (10, 9, 100) for c in (0, 1)]
    _write_csv(tmp_path / "t.csv", rows)
    _write_parquet(tmp_path / "t.parquet", rows, pa.int64())
    text, _ = _per_query(capsys, tmp_path / "t.csv", "gauc")
    numbers, _ = _per_query(capsys, tmp_path / "t.parquet", "gauc")
    assert list(text) == ["10", "100", "9"]
    assert list(numbers) == ["9", "10", "100"]


# ---------------------------------------------------------------------------
# TREC files: ids are strings, on the command line too
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("small_file_bytes", [0, 1 << 20])  # pyarrow, Python
def test_trec_look_alike_ids_on_the_command_line(
    tmp_path, capsys, monkeypatch, small_file_bytes
):
    from sklearn_rankmetrics._io import _trec
    from tests.test_trec import LOOK_ALIKE_QRELS, LOOK_ALIKE_RUN

    monkeypatch.setattr(_trec, "_SMALL_FILE_BYTES", small_file_bytes)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(LOOK_ALIKE_QRELS)
    run.write_text(LOOK_ALIKE_RUN)
    code = main(["evaluate", "-q", "-m", "map", str(qrels), str(run)])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = [tuple(line.split("\t")[1:]) for line in out.splitlines()]
    # AP by hand in tests/test_trec.py::test_look_alike_ids_are_strings_as_written;
    # the mean: (1 + 0 + 1 + 0.5 + 0.5 + 0.5) / 6 = 0.5833
    assert got == [
        ("007", "1.0000"),
        ("1", "0.0000"),
        ("1.0", "1.0000"),
        ("7", "0.5000"),
        ("NA", "0.5000"),
        ("nan", "0.5000"),
        ("all", "0.5833"),
    ]
