"""TREC qrels/run readers and their join into the long form.

The join follows trec_eval (usnistgov/trec_eval, form_res_rels.c): rank by
decreasing score, ties by decreasing document id; judged documents missing
from the run are unretrieved; -c adds the qrels' queries without results;
-M keeps the first documents.  Checked on trec_eval's own regression data
and against pytrec_eval on generated files.
"""

from pathlib import Path

import numpy as np
import pytest

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._io import _trec


@pytest.fixture(params=["pyarrow", "python"])
def backend(request, monkeypatch):
    """Run a test with the pyarrow reader and with the fallback reader."""
    if request.param == "pyarrow":
        pytest.importorskip("pyarrow")
        # small files too (by default they are read in Python)
        monkeypatch.setattr(_trec, "_SMALL_FILE_BYTES", 0)
    else:
        monkeypatch.setattr(_trec, "_pyarrow", lambda: None)
    return request.param


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_read_qrels_and_run(tmp_path, backend):
    qrels = write(
        tmp_path,
        "qrels",
        "# a comment\nq1 0 d1 1\n\nq1\t0\td2   0\n  q2 0 d1 -1\n",
    )
    run = write(
        tmp_path,
        "run",
        "q1 Q0 d1 1 2.5 tagA\nq1\tQ0\td2\t2\t  -1e3\ttagA extra fields\n"
        "q2 Q0 d3 1 +inf tagB\n",
    )
    q = srm.read_trec_qrels(qrels)
    assert q.query_id.tolist() == ["q1", "q1", "q2"]
    assert q.doc_id.tolist() == ["d1", "d2", "d1"]
    assert q.relevance.tolist() == [1, 0, -1]
    assert q.relevance.dtype == np.int64
    r = srm.read_trec_run(run)
    assert r.query_id.tolist() == ["q1", "q1", "q2"]
    assert r.doc_id.tolist() == ["d1", "d2", "d3"]
    assert r.score.tolist() == [2.5, -1000.0, np.inf]
    assert r.run_tag == "tagB"  # trec_eval keeps the last line's tag


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("run", "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.x r\n", r"run, line 2: the score"),
        ("run", "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 nan r\n", r"line 2: .*NaN"),
        ("run", "q1 Q0 d1 1 0.5 r\n\nq1 Q0 d2 0.4 r\n", r"line 3: expected at least"),
        ("qrels", "q1 0 d1 1\nq1 0 d2 1 extra\n", r"line 2: expected 4 fields"),
        ("qrels", "q1 0 d1 1\nq1 0 d2 high\n", r"line 2: the grade .* integer"),
        ("qrels", "q1 0 d1 1\nq1 0 d2 0.5\n", r"line 2: the grade .* integer"),
    ],
)
def test_malformed_lines_name_file_line_and_content(
    tmp_path, backend, name, text, message
):
    path = write(tmp_path, name, text)
    reader = srm.read_trec_run if name == "run" else srm.read_trec_qrels
    with pytest.raises(ValueError, match=message) as info:
        reader(path)
    bad_line = text.splitlines()[int(str(info.value).split("line ")[1][0]) - 1]
    assert repr(bad_line) in str(info.value)
    assert path in str(info.value)


def test_empty_and_missing_files(tmp_path, backend):
    with pytest.raises(ValueError, match="no results"):
        srm.read_trec_run(write(tmp_path, "run", "# nothing\n\n"))
    with pytest.raises(ValueError, match="no judgements"):
        srm.read_trec_qrels(write(tmp_path, "qrels", ""))
    with pytest.raises(FileNotFoundError, match="run file not found"):
        srm.read_trec_run(tmp_path / "absent")


def test_duplicates(tmp_path, backend):
    text = "q1 Q0 d1 1 0.5 a\nq1 Q0 d2 2 0.4 a\nq1 Q0 d1 3 0.3 a\n"
    path = write(tmp_path, "run", text)
    with pytest.raises(ValueError, match=r"lines 1 and 3: .*twice.*'first'"):
        srm.read_trec_run(path)
    first = srm.read_trec_run(path, duplicates="first")
    assert first.doc_id.tolist() == ["d1", "d2"]
    assert first.score.tolist() == [0.5, 0.4]
    last = srm.read_trec_run(path, duplicates="last")
    assert last.doc_id.tolist() == ["d2", "d1"]
    assert last.score.tolist() == [0.4, 0.3]
    with pytest.raises(ValueError, match="duplicates must be one of"):
        srm.read_trec_run(path, duplicates="max")
    qrels = write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(ValueError, match=r"qrels, lines 1 and 2"):
        srm.read_trec_qrels(qrels)
    assert srm.read_trec_qrels(qrels, duplicates="last").relevance.tolist() == [0]
    # same document for two queries is not a duplicate
    ok = write(tmp_path, "ok", "q1 Q0 d1 1 0.5 a\nq2 Q0 d1 1 0.5 a\n")
    assert srm.read_trec_run(ok).doc_id.tolist() == ["d1", "d1"]


# Query and document ids that a type-guessing reader would merge or turn
# into NA; trec_eval compares them as strings.
LOOK_ALIKE_QRELS = (
    "007 0 d1 1\n7 0 d1 0\n7 0 D1 1\nNA 0 01 1\n1.0 0 1 1\n1 0 1.0 1\nnan 0 None 1\n"
)
LOOK_ALIKE_RUN = (
    "007 Q0 d1 1 2.0 r\n007 Q0 D1 2 1.0 r\n"
    "7 Q0 d1 1 2.0 r\n7 Q0 D1 2 1.0 r\n"
    "NA Q0 1 1 2.0 r\nNA Q0 01 2 1.0 r\n"
    "1.0 Q0 1 1 1.0 r\n"
    "1 Q0 1 1 1.0 r\n"
    "nan Q0 null 1 2.0 r\nnan Q0 None 2 1.0 r\n"
)


def test_look_alike_ids_are_strings_as_written(tmp_path, backend):
    # AP by hand, each query's judged relevant document against the run:
    #   007: d1 relevant at rank 1 (D1 is unjudged)          -> 1
    #   7:   d1 judged non-relevant at 1, D1 relevant at 2    -> 1/2
    #   NA:  "1" unjudged at 1, "01" relevant at 2            -> 1/2
    #   1.0: "1" relevant at 1                                -> 1
    #   1:   relevant "1.0" not retrieved (the run has "1")   -> 0
    #   nan: "null" unjudged at 1, "None" relevant at 2       -> 1/2
    # (the queries in byte order, as trec_eval sorts them)
    qrels = write(tmp_path, "qrels", LOOK_ALIKE_QRELS)
    run = write(tmp_path, "run", LOOK_ALIKE_RUN)
    q = srm.read_trec_qrels(qrels)
    assert q.query_id.tolist() == ["007", "7", "7", "NA", "1.0", "1", "nan"]
    assert q.doc_id.tolist() == ["d1", "d1", "D1", "01", "1", "1.0", "None"]
    r = srm.read_trec_run(run)
    assert r.doc_id.tolist()[-2:] == ["null", "None"]
    y, s, qid = srm.trec_to_long_form(qrels, run)
    assert all(type(x) is str for x in qid)
    ap = srm.average_precision_at_k(y, s, query_id=qid, ignore_ties=True, average=None)
    assert np.unique(qid).tolist() == ["007", "1", "1.0", "7", "NA", "nan"]
    np.testing.assert_array_equal(ap, [1.0, 0.0, 1.0, 0.5, 0.5, 0.5])


def test_long_form_ranking_ties_unretrieved_and_options(tmp_path, backend):
    qrels = write(
        tmp_path,
        "qrels",
        "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 z -1\nq2 0 a 1\nq3 0 x 3\n",
    )
    # ties at 0.5 between a, b and bb: trec_eval ranks bb, b, a
    run = write(
        tmp_path,
        "run",
        "q1 Q0 a 1 0.5 r\nq1 Q0 b 2 0.5 r\nq1 Q0 x 3 0.9 r\nq1 Q0 bb 4 0.5 r\n"
        "q9 Q0 a 1 1.0 r\nq2 Q0 a 1 0.1 r\n",
    )
    y, s, q = srm.trec_to_long_form(qrels, run)
    # q1: x (unjudged), bb (unjudged), b, a, then c and z unretrieved
    assert q.tolist() == ["q1"] * 6 + ["q2"]
    assert s.tolist() == [0.9, 0.5, 0.5, 0.5, -np.inf, -np.inf, 0.1]
    assert y.tolist() == [0, 0, 0, 1, 2, 0, 1]  # negative grade -> 0
    # -c: q3 (judged, not in the run) joins with unretrieved rows only
    y, s, q = srm.trec_to_long_form(qrels, run, all_queries=True)
    assert q[-1] == "q3" and s[-1] == -np.inf and y[-1] == 3
    # -M 2: x and bb kept; b and a beyond the depth, judged -> unretrieved
    y, s, q = srm.trec_to_long_form(qrels, run, max_docs=2)
    assert s[q == "q1"].tolist() == [0.9, 0.5] + [-np.inf] * 4
    assert sorted(y[q == "q1"].tolist()) == [0, 0, 0, 0, 1, 2]
    with pytest.raises(ValueError, match="max_docs must be >= 1"):
        srm.trec_to_long_form(qrels, run, max_docs=0)
    # the readers' tuples work as inputs too, also next to a path
    expected = srm.trec_to_long_form(qrels, run)
    for q_in, r_in in [
        (srm.read_trec_qrels(qrels), srm.read_trec_run(run)),
        (srm.read_trec_qrels(qrels), run),
        (qrels, srm.read_trec_run(run)),
    ]:
        got = srm.trec_to_long_form(q_in, r_in)
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, b)


def _expected(peer, name):
    values = {}
    for line in (peer / f"out.test.{name}").read_text().splitlines():
        measure, query, value = line.split("\t")
        values[measure.strip(), query] = value
    return values


COMPLETE = {"all_queries": True}
REGRESSION = {
    "aq": ("qrels.test", "results.test", {}, None),
    "aqc": ("qrels.test", "results.trunc", COMPLETE, None),
    "aqcM": ("qrels.test", "results.trunc", dict(COMPLETE, max_docs=100), None),
    "aql": ("qrels.rel_level", "results.test", {}, 2),
}


@pytest.mark.parametrize("name", sorted(REGRESSION))
def test_trec_eval_regression_through_public_functions(name, backend, trec_eval_data):
    """The readers + the public metrics reproduce trec_eval's out.test.*."""
    peer = trec_eval_data
    qrels, run, options, level = REGRESSION[name]
    y, s, q = srm.trec_to_long_form(peer / qrels, peer / run, **options)
    expected = _expected(peer, name)
    queries = np.unique(q)
    common = dict(query_id=q, ignore_ties=True, no_relevant=0.0, average=None)
    binary = dict(common, relevance_threshold=level or 1)
    checks = {
        "map": srm.average_precision_at_k(y, s, **binary),
        "recip_rank": srm.reciprocal_rank_at_k(y, s, **binary),
        "ndcg": srm.ndcg_at_k(y, s, **common),
        "set_P": srm.precision_at_k(y, s, **binary),
        "set_recall": srm.recall_at_k(y, s, **binary),
        "set_F": srm.f1_at_k(y, s, **binary),
    }
    for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000):
        checks[f"P_{k}"] = srm.precision_at_k(y, s, k=k, **binary)
        checks[f"recall_{k}"] = srm.recall_at_k(y, s, k=k, **binary)
        checks[f"ndcg_cut_{k}"] = srm.ndcg_at_k(y, s, k=k, **common)
        checks[f"map_cut_{k}"] = srm.average_precision_at_k(y, s, k=k, **binary)
    for k in (1, 5, 10):
        checks[f"success_{k}"] = srm.hit_rate_at_k(y, s, k=k, **binary)
    n_checked = 0
    for measure, values in checks.items():
        for query, value in zip(
            [*queries, "all"], [*values, values.mean()], strict=True
        ):
            assert f"{value:6.4f}" == expected[measure, query], (measure, query)
            n_checked += 1
    assert n_checked == len(checks) * 4


# ---------------------------------------------------------------------------
# pytrec_eval on generated files
# ---------------------------------------------------------------------------
def random_files(tmp_path, seed, n_queries=30, neg_inf=False):
    """A qrels and a run file with ties, unjudged and unretrieved documents,
    graded judgements, queries only in the qrels and only in the run; with
    ``neg_inf``, run lines scored -inf too (retrieved documents that rank
    last, for trec_eval)."""
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = [], []
    for i in range(n_queries):
        qid = f"{rng.integers(1, 500)}-{i}"
        docs = [f"D{d:04d}" for d in rng.choice(3000, size=40, replace=False)]
        n_ret = int(rng.integers(1, 30))
        judged = rng.choice(40, size=int(rng.integers(1, 25)), replace=False)
        in_qrels = i % 7 != 3
        in_run = i % 11 != 5
        if in_qrels:
            for j in judged:
                grade = int(rng.choice([0, 0, 1, 2, 3, -1]))
                qrels_lines.append(f"{qid} 0 {docs[j]} {grade}")
        if in_run:
            scores = np.round(rng.normal(size=n_ret), 1)  # many ties
            if neg_inf:
                scores[rng.random(n_ret) < 0.3] = -np.inf
            for rank, (doc, sc) in enumerate(zip(docs, scores, strict=False)):
                run_lines.append(f"{qid} Q0 {doc} {rank} {sc} gen{seed}")
    order = rng.permutation(len(run_lines))
    qrels = write(tmp_path, f"qrels{seed}", "\n".join(qrels_lines) + "\n")
    run = write(tmp_path, f"run{seed}", "\n".join(run_lines[i] for i in order))
    return qrels, run


@pytest.mark.parametrize("neg_inf", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("level", [1, 2])
def test_matches_pytrec_eval_on_generated_files(tmp_path, seed, level, neg_inf):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = random_files(tmp_path, seed, neg_inf=neg_inf)
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(run_path) as fh:
        run = pytrec_eval.parse_run(fh)
    measures = {"map", "recip_rank", "ndcg", "P.3,10", "recall.3,10"}
    measures |= {"ndcg_cut.3,10", "map_cut.3,10", "success.1,5", "bpref"}
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, measures, relevance_level=level
    ).evaluate(run)
    y, s, q, judged = srm.trec_to_long_form(qrels_path, run_path, return_judged=True)
    queries = np.unique(q)
    assert sorted(theirs) == sorted(queries)
    common = dict(query_id=q, ignore_ties=True, no_relevant=0.0, average=None)
    binary = dict(common, relevance_threshold=level)
    ours = {
        "map": srm.average_precision_at_k(y, s, **binary),
        "recip_rank": srm.reciprocal_rank_at_k(y, s, **binary),
        "ndcg": srm.ndcg_at_k(y, s, **common),
        "bpref": srm.bpref_score(y, s, judged=judged, **binary),
    }
    for k in (3, 10):
        ours[f"P_{k}"] = srm.precision_at_k(y, s, k=k, **binary)
        ours[f"recall_{k}"] = srm.recall_at_k(y, s, k=k, **binary)
        ours[f"ndcg_cut_{k}"] = srm.ndcg_at_k(y, s, k=k, **common)
        ours[f"map_cut_{k}"] = srm.average_precision_at_k(y, s, k=k, **binary)
    for k in (1, 5):
        ours[f"success_{k}"] = srm.hit_rate_at_k(y, s, k=k, **binary)
    for measure, values in ours.items():
        expected = [theirs[query][measure] for query in queries]
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-12)


def test_ties_are_broken_by_decreasing_doc_id_in_byte_order(tmp_path, backend):
    """Upper-case letters sort before lower-case ones in byte order."""
    qrels = write(tmp_path, "qrels", "q 0 b 1\n")
    run = write(tmp_path, "run", "q Q0 B 1 1.0 r\nq Q0 b 2 1.0 r\nq Q0 a 3 1.0 r\n")
    y, s, _ = srm.trec_to_long_form(qrels, run)
    assert y.tolist() == [1, 0, 0]  # b, then a, then B


def test_line_numbers_count_blank_lines_on_the_fast_path(tmp_path, backend):
    path = write(tmp_path, "run", "\nq1 Q0 d1 1 0.5 a\n\nq1 Q0 d1 3 0.3 a\n")
    with pytest.raises(ValueError, match=r"lines 2 and 4: "):
        srm.read_trec_run(path)


def test_run_in_rank_order_and_shuffled_give_the_same_long_form(tmp_path):
    qrels_path, run_path = random_files(tmp_path, 7)
    lines = Path(run_path).read_text().splitlines()
    fields = [line.split() for line in lines]
    # the run written query by query in decreasing score (as TREC runs are)
    ranked = sorted(fields, key=lambda f: (f[0], -float(f[4])))
    sorted_path = write(tmp_path, "sorted", "\n".join(map(" ".join, ranked)))
    shuffled = srm.trec_to_long_form(qrels_path, run_path)
    in_order = srm.trec_to_long_form(qrels_path, sorted_path)
    for a, b in zip(shuffled, in_order, strict=True):
        np.testing.assert_array_equal(a, b)


def test_hash_collisions_are_checked_on_the_strings(tmp_path, monkeypatch):
    """The run's duplicate check hashes document ids; equal hashes must be
    compared exactly (here every hash collides)."""
    pytest.importorskip("pyarrow")
    qrels_path, run_path = random_files(tmp_path, 11)
    expected = srm.trec_to_long_form(qrels_path, run_path)
    monkeypatch.setattr(_trec, "_string_hash", lambda column: np.zeros(len(column)))
    colliding = srm.trec_to_long_form(qrels_path, run_path)
    for a, b in zip(expected, colliding, strict=True):
        np.testing.assert_array_equal(a, b)
    dup = write(tmp_path, "dup", "q Q0 a 1 1.0 r\nq Q0 b 2 0.5 r\nq Q0 a 3 0.1 r\n")
    with pytest.raises(ValueError, match="lines 1 and 3"):
        srm.trec_to_long_form(qrels_path, dup)
    qrels = write(tmp_path, "q", "q 0 a 1\n")
    y, s, _ = srm.trec_to_long_form(qrels, dup, duplicates="last")
    assert s.tolist() == [0.5, 0.1] and y.tolist() == [0, 1]


def test_string_hash_tells_different_ids_apart():
    pa = pytest.importorskip("pyarrow")
    ids = pa.array(["d1", "d2", "d10", "", "a-much-longer-document-id-" * 3, "d1"])
    h = _trec._string_hash(ids.slice(0))
    assert h[0] == h[5]
    assert len(set(h[:5].tolist())) == 5
    sliced = _trec._string_hash(ids.slice(2, 2))  # an offset into the buffers
    np.testing.assert_array_equal(sliced, h[2:4])


def test_bpref_with_judged_reproduces_trec_eval_on_its_regression_data(
    trec_eval_data,
):
    # out.test: bpref 0.1981; reading unjudged documents as judged
    # non-relevant gives 0.1912 instead.
    y, s, q, judged = srm.trec_to_long_form(
        trec_eval_data / "qrels.test",
        trec_eval_data / "results.test",
        return_judged=True,
    )
    assert (
        round(
            srm.bpref_score(
                y, s, query_id=q, judged=judged, ignore_ties=True, no_relevant=0.0
            ),
            4,
        )
        == 0.1981
    )
    assert (
        round(srm.bpref_score(y, s, query_id=q, ignore_ties=True, no_relevant=0.0), 4)
        == 0.1912
    )


@pytest.mark.parametrize("seed", range(5))
def test_bpref_judged_equals_leaving_unjudged_items_out(seed):
    rng = np.random.default_rng(seed)
    n, m = 6, 12
    Y = np.where(rng.random((n, m)) < 0.3, rng.integers(1, 3, (n, m)), 0)
    S = np.round(rng.random((n, m)), 1)
    S[rng.random((n, m)) < 0.1] = -np.inf
    judged = (rng.random((n, m)) < 0.6) | (Y > 0)
    w = rng.random(n) + 0.5
    opts = dict(sample_weight=w, no_relevant=0.0)
    got = srm.bpref_score(Y, S, judged=judged, average=None, **opts)
    qid = np.repeat(np.arange(n), m)
    rows = judged.ravel()
    dropped = srm.bpref_score(
        Y.ravel()[rows],
        S.ravel()[rows],
        query_id=qid[rows],
        average=None,
        no_relevant=0.0,
    )
    np.testing.assert_array_equal(got, dropped)
    long = srm.bpref_score(
        Y.ravel(), S.ravel(), query_id=qid, judged=rows, average=None, no_relevant=0.0
    )
    np.testing.assert_array_equal(got, long)
    assert srm.bpref_score(Y, S, judged=judged, **opts) == pytest.approx(
        np.average(dropped, weights=w), rel=1e-12
    )


def test_bpref_judged_bad_input():
    with pytest.raises(ValueError, match="relevant item was judged"):
        srm.bpref_score([[1, 0]], [[0.5, 0.2]], judged=[[False, True]])
    with pytest.raises(ValueError, match="shape of y_score"):
        srm.bpref_score([[1, 0]], [[0.5, 0.2]], judged=[[True]])
    with pytest.raises(TypeError, match="array of bool"):
        srm.bpref_score([[1, 0]], [[0.5, 0.2]], judged=[[1, 0]])


def test_run_whose_query_comes_in_two_blocks_is_ranked_by_score(tmp_path):
    # Each block is in decreasing score order, but q1's second block holds
    # its best document: the block-reordering fast path of _score_order
    # must not take this file (recip_rank 1.0, not 1/3).
    qrels = write(tmp_path, "qrels", "q1 0 d3 1\nq2 0 x1 1\n")
    run = write(
        tmp_path,
        "run",
        "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.4 r\nq2 Q0 x1 1 9.0 r\nq1 Q0 d3 3 0.9 r\n",
    )
    y, s, q = srm.trec_to_long_form(qrels, run)
    assert srm.reciprocal_rank_at_k(y, s, query_id=q, average=None).tolist() == [
        1.0,
        1.0,
    ]
    assert s.tolist() == [0.9, 0.5, 0.4, 9.0]


def test_byte_search_and_doc_keys_equal_pyarrow_kernels():
    # _has_byte (the fast reader's check for the other separator) equals
    # match_substring on sliced and large strings; _doc_keys (tie order by
    # document id) orders ids as np.unique does, bytes not letters
    pa = pytest.importorskip("pyarrow")
    pc = pytest.importorskip("pyarrow.compute")
    for strings in (["a\tb", "c"], ["ab", "c\t"], ["x", "y"], ["\t"], ["ab"]):
        arr = pa.array(["z\t", *strings], type=pa.string()).slice(1)
        for part in (arr, arr.slice(1), arr.slice(0, 1)):
            want = bool(pc.any(pc.match_substring(part, "\t")).as_py())
            assert _trec._has_byte(part, "\t") == want
        big = pa.array(["q" * 1000] * 3000 + strings, type=pa.large_string())
        want = bool(pc.any(pc.match_substring(big, "\t")).as_py())
        assert _trec._has_byte(big, "\t") == want
    rng = np.random.default_rng(0)
    words = np.array(
        ["a", "b", "B", "ab", "é", "z9", "aa", "ß", "Z", "a0"], dtype=object
    )
    for _ in range(100):
        doc = words[rng.integers(0, words.size, size=30)]
        rows = rng.permutation(30)[: rng.integers(1, 30)]
        by_numpy = _trec._doc_keys(doc, rows)
        by_arrow = _trec._doc_keys(pa.array(list(doc), type=pa.string()), rows)
        names = [s.encode() for s in doc[rows]]
        want = np.array([[a < b for b in names] for a in names])
        np.testing.assert_array_equal(by_numpy[:, None] < by_numpy[None], want)
        np.testing.assert_array_equal(by_arrow[:, None] < by_arrow[None], want)


def test_judged_codes_equal_a_dict_lookup():
    # the index of each document among the qrels' ids (-1: unjudged), with
    # pyarrow (validity bitmap read in numpy, sliced arrays) and without
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(1)
    for n in (1, 2, 9, 70):
        for _ in range(40):
            skip = int(rng.integers(0, 3))
            names = [f"d{x}" for x in rng.integers(0, 20, size=n + skip)]
            doc = pa.array(names, type=pa.string()).slice(skip)
            k = int(rng.integers(0, 10))
            vocab = sorted({f"d{x}" for x in rng.integers(0, 20, size=k)}) or ["zz"]
            want = [vocab.index(d) if d in vocab else -1 for d in names[skip:]]
            got = _trec._judged_codes(doc, pa.array(vocab, type=pa.string()))
            assert got.tolist() == want
            got = _trec._judged_codes(
                np.array(names[skip:], dtype=object), np.array(vocab, dtype=object)
            )
            assert got.tolist() == want
