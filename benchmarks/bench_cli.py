"""Wall time, CPU time and peak memory of ``rankmetrics evaluate`` against trec_eval.

Writes a TREC run of ``--lines`` lines (400 documents per query, scores
rounded so that some tie) and its qrels (about 20 judged documents per
query, a few of them not retrieved) into a temporary directory, builds the
trec_eval C binary with ``make`` in a temporary copy of
``../shared/peer-data/trec_eval_src`` (or takes ``--trec-eval PATH``), and
runs every tool as a separate process on the same files:

* ``rankmetrics``: ``python -m sklearn_rankmetrics evaluate``;
* ``trec_eval``: the C binary;
* ``pytrec_eval``: a Python script that parses both files
  (``parse_qrel``/``parse_run``) and evaluates (``RelevanceEvaluator``);
* ``ir_measures``: its command line, when installed (only for the measure
  set it can name).

Each process's wall time, CPU time (user + system, from ``os.wait4``) and
peak resident memory are the median of ``--repeat`` interleaved
repetitions (the cheapest wall and CPU times too); the table gives the
ratios to the trec_eval binary measured in the same run, for ``-m
ndcg_cut.10 -m map -m P.10`` and for ``-m all_trec``, and the start-up cost
on a one-query run. The printed means of the three measures are checked
to agree with trec_eval's.  The load average is printed before and after
each set: on a shared machine compare the ratios of one run.

    python benchmarks/bench_cli.py                 # 2M lines
    python benchmarks/bench_cli.py --lines 10000000 --repeat 3
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_files(directory, n_lines, seed=0):
    """A run of ``n_lines`` lines and its qrels; returns both paths."""
    rng = np.random.default_rng(seed)
    per_query = min(400, n_lines)
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
    # qrels: about 16 retrieved documents per query and 4 the run missed
    pick = rng.random(n) < 16 / per_query
    q_j, d_j = qid[pick], doc[pick]
    q_m = np.repeat(np.arange(n_queries) + 1000, 4)
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


ROOT = Path(__file__).resolve().parents[1]
# ../shared from the project root (a git worktree sits one level deeper)
TREC_SRC = next(
    (
        p / "shared" / "peer-data" / "trec_eval_src"
        for p in ROOT.parents[:2]
        if (p / "shared" / "peer-data" / "trec_eval_src").is_dir()
    ),
    ROOT.parent / "shared" / "peer-data" / "trec_eval_src",
)

MEASURE_SETS = {
    "3 measures": ["-m", "ndcg_cut.10", "-m", "map", "-m", "P.10"],
    "all_trec": ["-m", "all_trec"],
}
IR_MEASURES = {"3 measures": "nDCG@10 AP P@10"}

PYTREC_SCRIPT = """
import sys, numpy as np, pytrec_eval
qrels, run, measures = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(qrels) as fh:
    q = pytrec_eval.parse_qrel(fh)
with open(run) as fh:
    r = pytrec_eval.parse_run(fh)
if measures == ["all_trec"]:
    measures = pytrec_eval.supported_measures
res = pytrec_eval.RelevanceEvaluator(q, set(measures)).evaluate(r)
names = sorted(next(iter(res.values())))
for name in names:
    print(f"{name}\\tall\\t{np.mean([v[name] for v in res.values()]):.4f}")
"""


def build_trec_eval(directory):
    """``make`` in a copy of trec_eval's source; the binary's path or None."""
    if not TREC_SRC.is_dir():
        return None
    dest = Path(directory) / "trec_eval_src"
    shutil.copytree(TREC_SRC, dest)
    done = subprocess.run(["make"], cwd=dest, capture_output=True, text=True)
    binary = dest / "trec_eval"
    if done.returncode != 0 or not binary.exists():
        print(f"trec_eval: make failed\n{done.stderr[-2000:]}")
        return None
    return str(binary)


# A small launcher process: a child forked from this (large) process would
# report this process's resident memory as its own peak (ru_maxrss keeps the
# high-water mark across fork and exec); forked from a bare interpreter
# (about 10 MB), it reports its own.
LAUNCHER = """
import os, subprocess, sys, time
out_path, cmd = sys.argv[1], sys.argv[2:]
with open(out_path, "wb") as out:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
code = os.waitstatus_to_exitcode(status)
if code:
    sys.stderr.write(err.decode(errors="replace")[-2000:])
    sys.exit(code)
print(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
"""


def measure(cmd, env=None):
    """(wall s, cpu s, peak RSS MB, stdout) of one process."""
    with tempfile.NamedTemporaryFile(suffix=".out") as out:
        done = subprocess.run(
            [sys.executable, "-S", "-c", LAUNCHER, out.name, *cmd],
            capture_output=True,
            text=True,
            env=env,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{cmd[:3]} failed: {done.stderr}")
        wall, cpu, rss = map(float, done.stdout.split())
        text = Path(out.name).read_text()
    return wall, cpu, rss, text


def _python_env():
    """The environment of the Python tools: this checkout on the path, and
    compiled bytecode cached (in a temporary directory) as an installed
    package has it -- with ``PYTHONDONTWRITEBYTECODE`` set, every run would
    compile the package's sources again (about 0.1 s of start-up)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=PYCACHE)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


PYCACHE = os.path.join(tempfile.gettempdir(), "rankmetrics-bench-pycache")


def tools(binary, qrels, run, measure_set):
    """name -> command line, for one measure set."""
    env = _python_env()
    flags = MEASURE_SETS[measure_set]
    found = {
        "rankmetrics": (
            [sys.executable, "-m", "sklearn_rankmetrics", "evaluate", *flags]
            + [qrels, run],
            env,
        ),
    }
    if binary:
        found["trec_eval"] = ([binary, *flags, qrels, run], None)
    try:
        import pytrec_eval  # noqa: F401
    except ImportError:
        pass
    else:
        names = [f for f in flags if f != "-m"]
        found["pytrec_eval"] = (
            [sys.executable, "-c", PYTREC_SCRIPT, qrels, run, *names],
            None,
        )
    ir_cli = shutil.which("ir_measures") or (
        str(Path(sys.executable).parent / "ir_measures")
        if (Path(sys.executable).parent / "ir_measures").exists()
        else None
    )
    if ir_cli and measure_set in IR_MEASURES:
        found["ir_measures"] = ([ir_cli, qrels, run, IR_MEASURES[measure_set]], None)
    return found


def means(text):
    """{measure: mean} from trec_eval-style ``name  all  value`` lines."""
    values = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            values[parts[0]] = parts[2]
        elif len(parts) == 2:  # ir_measures: "nDCG@10\tvalue"
            values[parts[0]] = parts[1]
    return values


def agree(name, values, ref):
    keys = {
        "trec_eval": ("ndcg_cut_10", "map", "P_10"),
        "rankmetrics": ("ndcg_cut_10", "map", "P_10"),
        "pytrec_eval": ("ndcg_cut_10", "map", "P_10"),
        "ir_measures": ("nDCG@10", "AP", "P@10"),
    }[name]
    want = [ref.get(k) for k in ("ndcg_cut_10", "map", "P_10")]
    got = [values.get(k) for k in keys]
    if None in got or None in want:
        return "n/a"
    return (
        "yes"
        if all(abs(float(a) - float(b)) < 1e-4 for a, b in zip(got, want, strict=True))
        else "NO"
    )


def bench(binary, qrels, run, measure_set, repeat):
    cmds = tools(binary, qrels, run, measure_set)
    measure(*cmds["rankmetrics"])  # warm-up: bytecode cache, file cache
    figures = {name: [] for name in cmds}
    outputs = {}
    for _ in range(repeat):
        for name, (cmd, env) in cmds.items():
            wall, cpu, rss, text = measure(cmd, env)
            figures[name].append((wall, cpu, rss))
            outputs[name] = means(text)
    ref = outputs.get("trec_eval")
    base = np.median(figures["trec_eval"], axis=0) if "trec_eval" in figures else None
    low = np.min(figures["trec_eval"], axis=0) if "trec_eval" in figures else None
    flags = ", ".join(f for f in MEASURE_SETS[measure_set] if f != "-m")
    print(f"\n{measure_set} ({flags}), load average after: {_load()}")
    print(
        f"  {'tool':<12} {'wall s':>8} {'cpu s':>8} {'RSS MB':>8}   "
        "ratios to trec_eval (wall/cpu/RSS)   3 means agree   "
        "cheapest wall/cpu s (ratios)"
    )
    for name, rows in figures.items():
        med, best = np.median(rows, axis=0), np.min(rows, axis=0)
        ratio = cheapest = ""
        if base is not None:
            ratio = "  ".join(f"{m / b:5.2f}x" for m, b in zip(med, base, strict=True))
            cheapest = f"({best[0] / low[0]:.2f}x / {best[1] / low[1]:.2f}x)"
        ok = (
            agree(name, outputs[name], ref)
            if ref and measure_set == "3 measures"
            else ""
        )
        print(
            f"  {name:<12} {med[0]:8.2f} {med[1]:8.2f} {med[2]:8.0f}   {ratio:<36} "
            f"{ok:<15} {best[0]:.2f} / {best[1]:.2f} {cheapest}"
        )


def _load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--lines",
        type=int,
        default=2_000_000,
        help="lines of the generated run (default 2,000,000; try 10,000,000)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="interleaved repetitions; the median is shown (default 3)",
    )
    parser.add_argument(
        "--trec-eval",
        default=None,
        help="a trec_eval binary (default: make one from trec_eval_src)",
    )
    parser.add_argument(
        "--sets",
        nargs="*",
        default=["3 measures", "all_trec", "start-up"],
        choices=["3 measures", "all_trec", "start-up"],
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        binary = args.trec_eval or build_trec_eval(tmp)
        start = time.perf_counter()
        qrels, run = write_files(tmp, args.lines)
        size = os.path.getsize(run) / 1e6
        print(
            f"run: {args.lines:,} lines ({size:.0f} MB), written in "
            f"{time.perf_counter() - start:.1f} s; trec_eval: {binary}; "
            f"load average: {_load()}"
        )
        for measure_set in args.sets:
            if measure_set == "start-up":
                continue
            bench(binary, qrels, run, measure_set, args.repeat)
        if "start-up" in args.sets:
            small = os.path.join(tmp, "small")
            os.mkdir(small)
            q1, r1 = write_files(small, 400)
            print("\nstart-up: one query of 400 lines")
            bench(binary, q1, r1, "3 measures", args.repeat)


if __name__ == "__main__":
    main()
