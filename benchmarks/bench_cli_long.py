"""``rankmetrics evaluate --long`` on an impression table, against the
in-memory report (a benchmark, not a test).

Writes a table of ``--rows`` rows (``--items`` rows per query on average,
query sizes drawn at random, rows grouped by query as a log usually is;
a 0/1 click label and two score columns, ``model_a`` and ``model_b``,
rounded so that some tie) as Parquet and as CSV into a temporary
directory, then runs as separate processes, each measured for wall time,
CPU time (user + system) and peak resident memory:

* ``cli parquet`` / ``cli csv``: ``python -m sklearn_rankmetrics evaluate
  --long FILE --score-col model_a model_b --no-compare`` with the default
  --long measures (ndcg@10 map@10 mrr@10 precision@10 recall@10
  hit_rate@10 gauc);
* ``cli csv chunked``: the same with ``--chunk-rows`` (bounded memory);
* ``in-memory``: a script that reads the Parquet file with pyarrow and
  calls ``ranking_report`` once per score column with the same metrics --
  what a user would write by hand, and the baseline of the ratios.

The printed means of the command line are checked to agree with the
in-memory report's.  Medians of ``--repeat`` interleaved repetitions.

    python benchmarks/bench_cli_long.py                  # 10,000,000 rows
    python benchmarks/bench_cli_long.py --rows 2000000 --repeat 3
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cli import _python_env, measure  # noqa: E402

METRICS = [
    "ndcg@10",
    "map@10",
    "mrr@10",
    "precision@10",
    "recall@10",
    "hit_rate@10",
    "gauc",
]

IN_MEMORY = """
import json, sys
import pyarrow.parquet as pq
from sklearn_rankmetrics import ranking_report
table = pq.read_table(sys.argv[1])
q = table.column("query").to_numpy()
y = table.column("click").to_numpy()
out = {}
for col in ("model_a", "model_b"):
    s = table.column(col).to_numpy()
    out[col] = ranking_report(
        y, s, query_id=q, k=[10], output_dict=True,
        metrics=[m.split("@")[0] for m in %r])
print(json.dumps(out))
"""


def write_table(directory, n_rows, n_items, seed=0):
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    sizes = rng.integers(max(1, n_items // 4), 2 * n_items, size=n_rows)
    sizes = sizes[np.cumsum(sizes) <= n_rows]
    sizes = np.append(sizes, n_rows - sizes.sum()) if sizes.sum() < n_rows else sizes
    query = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    click = (rng.random(n_rows) < 0.05).astype(np.int8)
    a = np.round(rng.random(n_rows) + 0.5 * click, 3)
    b = np.round(rng.random(n_rows) + 0.3 * click, 3)
    table = pa.table({"query": query, "click": click, "model_a": a, "model_b": b})
    parquet = Path(directory, "log.parquet")
    csv = Path(directory, "log.csv")
    pq.write_table(table, parquet)
    pacsv.write_csv(table, csv)
    return parquet, csv, int(sizes.size)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--items", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chunk-rows", type=int, default=1_000_000)
    args = parser.parse_args(argv)

    env = _python_env()
    with tempfile.TemporaryDirectory() as tmp:
        parquet, csv, n_queries = write_table(tmp, args.rows, args.items)
        mb = parquet.stat().st_size / 2**20, csv.stat().st_size / 2**20
        print(
            f"{args.rows:,} rows, {n_queries:,} queries; Parquet {mb[0]:.0f} MB, "
            f"CSV {mb[1]:.0f} MB"
        )
        base = [
            "-m",
            "sklearn_rankmetrics",
            "evaluate",
            "--query-col",
            "query",
            "--label-col",
            "click",
            "--score-col",
            "model_a",
            "model_b",
            "--no-compare",
            "--format",
            "json",
        ]
        for m in METRICS:
            base += ["-m", m]
        script = Path(tmp, "in_memory.py")
        script.write_text(IN_MEMORY % METRICS)
        commands = {
            "in-memory": [str(script), str(parquet)],
            "cli parquet": [*base, "--long", str(parquet)],
            "cli csv": [*base, "--long", str(csv)],
            "cli csv chunked": [
                *base,
                "--long",
                str(csv),
                "--chunk-rows",
                str(args.chunk_rows),
            ],
        }
        runs = {name: [] for name in commands}
        outputs = {}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                wall, cpu, rss, text = measure_python(cmd, env)
                runs[name].append((wall, cpu, rss))
                outputs[name] = text
        reference = json.loads(outputs["in-memory"])
        check(reference, outputs)
        med = {
            name: np.median(np.array(values), axis=0) for name, values in runs.items()
        }
        b = med["in-memory"]
        print(f"{'':18}{'wall s':>8}{'CPU s':>8}{'MB':>8}   ratios to in-memory")
        for name, (wall, cpu, rss) in med.items():
            print(
                f"{name:18}{wall:8.2f}{cpu:8.2f}{rss:8.0f}   "
                f"{wall / b[0]:.2f} / {cpu / b[1]:.2f} / {rss / b[2]:.2f}"
            )


def measure_python(cmd, env):
    """measure() of ``python cmd...`` (a script or ``-m module``)."""
    return measure([sys.executable, *cmd], env=env)


def check(reference, outputs):
    """The command line's means equal the in-memory report's (to 1e-12:
    the chunked reader sums its chunks in another order)."""
    for name, text in outputs.items():
        if name == "in-memory":
            continue
        got = json.loads(text)
        for model, values in reference.items():
            for metric, value in values.items():
                theirs = got[model]["all"][metric]
                if not np.isclose(theirs, value, rtol=1e-12, atol=0):
                    raise SystemExit(
                        f"{name}: {model} {metric} = {theirs}, in memory {value}"
                    )


if __name__ == "__main__":
    main()
