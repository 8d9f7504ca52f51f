"""End-to-end time of ``rankmetrics evaluate`` against pytrec_eval and ir_measures.

Writes a TREC run of ``--lines`` lines (1000 documents per query, scores
rounded so that some tie) and its qrels (about 100 judged documents per
query, some of them not retrieved) into a temporary directory, then times,
in this process and on the same files, parse + evaluate + print of
``ndcg_cut.10``, ``map`` and ``P.10`` (the mean over queries):

* ``rankmetrics``: ``sklearn_rankmetrics._cli.main(["evaluate", ...])``;
* pytrec_eval: ``parse_qrel`` + ``parse_run`` + ``RelevanceEvaluator``;
* ir_measures (when installed): ``read_trec_qrels`` + ``read_trec_run`` +
  ``calc_aggregate``.

It prints each time, the ratios to ours measured in the same run, and
checks that the three agree on the values.

    python benchmarks/bench_cli.py --lines 1000000

Figures behind two choices of ``sklearn_rankmetrics/_trec.py``, measured
once on the shared, heavily loaded 2-core machine (noisy; re-measure
before relying on them):

* ``_score_order``'s block path: 10M rows in 10,000 queries, 0.66 s
  instead of 8.0 s for ``np.lexsort``;
* ``_string_hash``: 10M ids of 5-16 bytes, 5.3 and 7.7 s against 10.9
  and 9.9 s for pyarrow's ``dictionary_encode``.
"""

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn_rankmetrics._cli import main as rankmetrics_main  # noqa: E402

MEASURES = ("ndcg_cut.10", "map", "P.10")


def write_files(directory, n_lines, seed=0):
    """A run of ``n_lines`` lines and its qrels; returns both paths."""
    rng = np.random.default_rng(seed)
    per_query = 1000
    n_queries = max(1, n_lines // per_query)
    n = n_queries * per_query
    qid = np.repeat(np.arange(n_queries) + 1000, per_query)
    doc = rng.integers(0, 50 * n_queries * per_query, size=n)
    # distinct documents within a query: offset by position
    doc = doc - doc % per_query + np.tile(np.arange(per_query), n_queries)
    # scores rounded (some ties), sorted within each query as runs are
    score = np.round(rng.normal(size=n) * 3, 3).reshape(n_queries, per_query)
    score = -np.sort(-score, axis=1).reshape(-1)
    rank = np.tile(np.arange(1, per_query + 1), n_queries)
    run = os.path.join(directory, "run.txt")
    qrels = os.path.join(directory, "qrels.txt")
    _write_columns(
        run, [qid, np.full(n, "Q0"), _docs(doc), rank, score, np.full(n, "bench")]
    )
    # qrels: 80 retrieved documents per query and 20 the run missed
    pick = rng.random(n) < 0.08
    q_j, d_j = qid[pick], doc[pick]
    q_m = np.repeat(np.arange(n_queries) + 1000, 20)
    d_m = rng.integers(0, 10**6, size=q_m.size) * per_query + per_query - 1 + 10**12
    q_all = np.concatenate([q_j, q_m])
    d_all = np.concatenate([d_j, d_m])
    grade = rng.choice([0, 0, 1, 1, 2, 3], size=q_all.size)
    _, first = np.unique(np.stack([q_all, d_all], 1), axis=0, return_index=True)
    first.sort()
    _write_columns(
        qrels,
        [q_all[first], np.zeros(first.size, int), _docs(d_all[first]), grade[first]],
    )
    return qrels, run


def _docs(numbers):
    return np.char.add("DOC-", numbers.astype(str))


def _write_columns(path, columns):
    try:
        import pyarrow as pa
        import pyarrow.csv as pa_csv
    except ImportError:
        rows = np.stack([np.asarray(c).astype(str) for c in columns], axis=1)
        np.savetxt(path, rows, fmt="%s", delimiter=" ")
        return
    table = pa.table({str(i): pa.array(c) for i, c in enumerate(columns)})
    pa_csv.write_csv(
        table,
        path,
        write_options=pa_csv.WriteOptions(
            include_header=False, delimiter=" ", quoting_style="none"
        ),
    )


def run_ours(qrels, run):
    out = io.StringIO()
    argv = ["evaluate", "--quiet", *(x for m in MEASURES for x in ("-m", m))]
    with contextlib.redirect_stdout(out):
        code = rankmetrics_main([*argv, qrels, run])
    assert code == 0
    values = {}
    for line in out.getvalue().splitlines():
        name, _, value = line.split("\t")
        values[name.strip()] = float(value)
    return values


def run_pytrec_eval(qrels, run):
    import pytrec_eval

    with open(qrels) as fh:
        q = pytrec_eval.parse_qrel(fh)
    with open(run) as fh:
        r = pytrec_eval.parse_run(fh)
    result = pytrec_eval.RelevanceEvaluator(q, set(MEASURES)).evaluate(r)
    values = {}
    for name in ("ndcg_cut_10", "map", "P_10"):
        values[name] = float(np.mean([v[name] for v in result.values()]))
        print(f"  pytrec_eval {name:<12}\tall\t{values[name]:6.4f}")
    return values


def run_ir_measures(qrels, run):
    import ir_measures
    from ir_measures import AP, P, nDCG

    q = ir_measures.read_trec_qrels(qrels)
    r = ir_measures.read_trec_run(run)
    agg = ir_measures.calc_aggregate([nDCG @ 10, AP, P @ 10], q, r)
    values = {
        "ndcg_cut_10": agg[nDCG @ 10],
        "map": agg[AP],
        "P_10": agg[P @ 10],
    }
    for name, value in values.items():
        print(f"  ir_measures {name:<12}\tall\t{value:6.4f}")
    return values


def timed(func, *args):
    start = time.perf_counter()
    values = func(*args)
    return time.perf_counter() - start, values


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--lines",
        type=int,
        default=10_000_000,
        help="lines of the generated run (default 10,000,000)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time each tool this many times, interleaved, and keep the "
        "best (the machine's load changes between runs)",
    )
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=("pytrec_eval", "ir_measures"),
        help="tools not to time",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        qrels, run = write_files(tmp, args.lines)
        size = os.path.getsize(run) / 1e6
        print(
            f"run: {args.lines:,} lines ({size:.0f} MB), written in "
            f"{time.perf_counter() - start:.1f} s; measures: {', '.join(MEASURES)}"
        )
        results = {}
        tools = {
            "rankmetrics": run_ours,
            "pytrec_eval": run_pytrec_eval,
            "ir_measures": run_ir_measures,
        }
        for _ in range(args.repeat):
            for name, func in tools.items():
                if name in args.skip:
                    continue
                try:
                    t, values = timed(func, qrels, run)
                except ImportError as exc:
                    print(f"{name}: not installed ({exc})")
                    args.skip.append(name)
                    continue
                print(f"{name:<22} {t:7.2f} s")
                if name not in results or t < results[name][0]:
                    results[name] = (t, values)
        print(
            "best times: "
            + ", ".join(f"{n} {t:.2f} s" for n, (t, _) in results.items())
        )
        ours_t, ours_v = results["rankmetrics"]
        print("\nratio (their time / rankmetrics' time, same files, same run):")
        for name, (t, values) in results.items():
            if name == "rankmetrics":
                continue
            # ours are printed with trec_eval's 4 decimals
            agree = all(f"{values[m]:6.4f}" == f"{ours_v[m]:6.4f}" for m in values)
            print(f"  {name:<14} {t / ours_t:5.2f}x   values agree: {agree}")


if __name__ == "__main__":
    main()
