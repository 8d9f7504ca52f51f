"""The long form agrees with trec_eval (through pytrec_eval) on random runs.

Each random run has string query and document ids, runs of different
lengths, graded judgements (grades 1-3, plus judged non-relevant documents)
and relevant documents that the run did not retrieve; those enter the long
form as rows scored ``-inf``.  Scores are distinct within a query because
trec_eval breaks ties by document id, not by averaging.
"""

import numpy as np
import pytest

import sklearn_rankmetrics as srm

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 3, 5, 10)


def random_run(seed, n_queries=40):
    """(qrels, run) dicts for pytrec_eval and the same data in long form."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    rows = []  # (query, doc, grade, score)
    for q in range(n_queries):
        qid = f"q{rng.integers(0, 10**6)}-{q}"
        n_docs = int(rng.integers(1, 25))
        docs = [f"d{d}" for d in rng.choice(200, size=n_docs + 8, replace=False)]
        ranked, unretrieved = docs[:n_docs], docs[n_docs:]
        scores = rng.permutation(n_docs) + rng.random(n_docs) * 0.5  # distinct
        grades = {}
        for doc in ranked:
            if rng.random() < 0.35:
                grades[doc] = int(rng.integers(1, 4))
            elif rng.random() < 0.2:
                grades[doc] = 0  # judged non-relevant
        for doc in unretrieved[: int(rng.integers(0, 4))]:
            grades[doc] = int(rng.integers(1, 4))  # relevant, not retrieved
        if not any(grades.values()):
            grades[unretrieved[-1]] = 1  # every query has a relevant document
        qrels[qid] = grades
        run[qid] = {doc: float(sc) for doc, sc in zip(ranked, scores, strict=True)}
        for doc, sc in run[qid].items():
            rows.append((qid, doc, grades.get(doc, 0), sc))
        for doc, grade in grades.items():
            if doc not in run[qid]:
                rows.append((qid, doc, grade, -np.inf))
    order = rng.permutation(len(rows))
    qid = np.array([rows[i][0] for i in order])
    y_true = np.array([rows[i][2] for i in order])
    y_score = np.array([rows[i][3] for i in order])
    return qrels, run, (y_true, y_score, qid)


def trec_values(qrels, run, measure, query_ids):
    cut = "" if measure == "recip_rank" else "." + ",".join(map(str, CUTOFFS))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure + cut})
    result = evaluator.evaluate(run)
    if measure == "recip_rank":
        return {None: np.array([result[q]["recip_rank"] for q in query_ids])}
    return {
        k: np.array([result[q][f"{measure}_{k}"] for q in query_ids]) for k in CUTOFFS
    }


OURS = {
    "P": srm.precision_at_k,
    "recall": srm.recall_at_k,
    "map_cut": srm.average_precision_at_k,
    "ndcg_cut": srm.ndcg_at_k,
    "recip_rank": srm.reciprocal_rank_at_k,
}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("measure", sorted(OURS))
def test_long_form_matches_trec_eval(measure, seed):
    qrels, run, (y_true, y_score, qid) = random_run(seed)
    query_ids = np.unique(qid)  # the order of average=None
    for k, expected in trec_values(qrels, run, measure, query_ids).items():
        got = OURS[measure](y_true, y_score, k=k, query_id=qid, average=None)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        mean = OURS[measure](y_true, y_score, k=k, query_id=qid)
        assert mean == pytest.approx(expected.mean(), rel=1e-12, abs=1e-12)


def test_long_form_matches_trec_eval_with_ties_broken_by_ignore_ties():
    """With ignore_ties=True the earlier row ranks first among ties; sorting
    each query's rows by decreasing document id first reproduces trec_eval's
    tie-breaking."""
    qrels, run, _ = random_run(3, n_queries=25)
    rows = []
    for q, docs in run.items():
        for doc, sc in docs.items():  # coarse scores: many ties
            rows.append((q, doc, qrels[q].get(doc, 0), float(round(sc / 6))))
        for doc, grade in qrels[q].items():
            if doc not in docs:
                rows.append((q, doc, grade, -np.inf))
    for q in run:
        run[q] = {doc: float(round(sc / 6)) for doc, sc in run[q].items()}
    rows.sort(key=lambda r: r[1], reverse=True)  # trec_eval: larger docid first
    qid = np.array([r[0] for r in rows])
    y_true = np.array([r[2] for r in rows])
    y_score = np.array([r[3] for r in rows])
    query_ids = np.unique(qid)
    for measure in ("P", "map_cut", "ndcg_cut", "recip_rank"):
        for k, expected in trec_values(qrels, run, measure, query_ids).items():
            got = OURS[measure](
                y_true, y_score, k=k, query_id=qid, average=None, ignore_ties=True
            )
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
