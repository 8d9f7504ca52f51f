"""Start-up cost of the package and of its command line (issues 19 and 31).

Runs fresh interpreters, ``--repeat`` interleaved rounds of each command,
and prints the median and the cheapest wall and CPU (user + system) time
of each, in seconds:

* ``python -c pass`` and ``import numpy``: the floor every user pays;
* ``import sklearn_rankmetrics`` and ``import sklearn_rankmetrics._cli``;
* ``rankmetrics --help`` and ``--version`` (no metric, no numpy);
* ``rankmetrics evaluate -m ndcg_cut.10 qrels run`` on a one-query TREC
  pair (issue 31, goal 3: under 0.3 s wall on a quiet machine);
* ``import sklearn``, the baseline the lazy imports avoid;

then where the one-query run's time goes (one process, timed around each
step: the interpreter and ``site``, numpy, the command line's own modules,
the run itself) and the ``-X importtime`` heaviest modules.

The package's compiled bytecode is cached (in a temporary directory, as an
installed package has it: pip compiles it at install time) unless
``--no-bytecode`` is given: then every process compiles the package's
sources again, as happens when running from a source checkout with
``PYTHONDONTWRITEBYTECODE`` set.

    python benchmarks/bench_import.py --repeat 11
    python benchmarks/bench_import.py --repeat 11 --no-bytecode

The machine may be shared: the load average is printed before and after;
compare figures measured in one run.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cli import ROOT, measure  # noqa: E402

# one process, timed around each step of a one-query evaluate
STEPS = """
import time
t0 = time.perf_counter()
import numpy
t1 = time.perf_counter()
from sklearn_rankmetrics._cli import main, _evaluate
t2 = time.perf_counter()
import contextlib, io, json, sys
with contextlib.redirect_stdout(io.StringIO()):
    main(["evaluate", "-m", "ndcg_cut.10", *sys.argv[1:]])
t3 = time.perf_counter()
print(json.dumps({"numpy": t1 - t0, "package": t2 - t1, "run": t3 - t2}))
"""


def _env(bytecode):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if bytecode:
        env["PYTHONPYCACHEPREFIX"] = os.path.join(
            tempfile.gettempdir(), "rankmetrics-bench-pycache"
        )
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def _load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def importtime(args, env):
    err = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    ).stderr
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, cumulative_us, name = line[len("import time:") :].split("|")
        rows.append((int(cumulative_us), int(self_us), name.rstrip()))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="compile the package's sources in every process",
    )
    args = parser.parse_args(argv)
    env = _env(not args.no_bytecode)
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        qrels = Path(tmp, "qrels.txt")
        run = Path(tmp, "run.txt")
        qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\n")
        run.write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\nq1 Q0 d3 3 0.1 r\n")
        cli = [py, "-m", "sklearn_rankmetrics"]
        commands = {
            "python -c pass": [py, "-c", "pass"],
            "import numpy": [py, "-c", "import numpy"],
            "import sklearn_rankmetrics": [py, "-c", "import sklearn_rankmetrics"],
            "import sklearn_rankmetrics._cli": [
                py,
                "-c",
                "import sklearn_rankmetrics._cli",
            ],
            "rankmetrics --help": [*cli, "--help"],
            "rankmetrics --version": [*cli, "--version"],
            "one-query evaluate": [
                *cli,
                "evaluate",
                "-m",
                "ndcg_cut.10",
                str(qrels),
                str(run),
            ],
            "import sklearn": [py, "-c", "import sklearn"],
        }
        print(f"load average before: {_load()}")
        for cmd in commands.values():  # warm-up: bytecode cache, file cache
            measure(cmd, env)
        times = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                times[name].append(measure(cmd, env)[:2])
        steps = []
        for _ in range(args.repeat):
            out = subprocess.run(
                [py, "-c", STEPS, str(qrels), str(run)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            steps.append(json.loads(out))
        print(f"load average after:  {_load()}")
        cached = "cached" if not args.no_bytecode else "compiled in every process"
        print(
            f"\n{args.repeat} interleaved rounds of fresh processes, the "
            f"package's bytecode {cached} (s)"
        )
        print(
            f"  {'':34s} {'wall median':>11} {'min':>6} {'CPU median':>11} {'min':>6}"
        )
        for name, rows in times.items():
            a = np.array(rows)
            med, low = np.median(a, axis=0), a.min(axis=0)
            cells = f"{med[0]:11.3f} {low[0]:6.3f} {med[1]:11.3f} {low[1]:6.3f}"
            print(f"  {name:34s} {cells}")
        print("\none-query evaluate, step by step in one process (median, s):")
        for key in ("numpy", "package", "run"):
            print(f"  {key:34s} {np.median([s[key] for s in steps]):11.3f}")
        rows = importtime(commands["one-query evaluate"][1:], env)
        total = {n.strip(): c for c, _, n in rows}
        print(
            "-X importtime of the one-query evaluate (cumulative, s): "
            f"numpy {total.get('numpy', 0) / 1e6:.3f}, sklearn_rankmetrics._cli "
            f"{total.get('sklearn_rankmetrics._cli', 0) / 1e6:.3f}"
        )
        ours = [r for r in rows if r[2].strip().startswith("sklearn_rankmetrics")]
        print(
            f"  the package's own modules: {len(ours)}, self time "
            f"{sum(r[1] for r in ours) / 1e6:.3f} s; heaviest:"
        )
        for _, self_us, name in sorted(ours, key=lambda t: -t[1])[:8]:
            print(f"  {self_us / 1e6:7.3f} s  {name.strip()}")
        heavy = {n.strip().split(".")[0] for _, _, n in rows}
        heavy &= {"sklearn", "scipy", "pandas", "pyarrow", "matplotlib"}
        print(
            "sklearn/scipy/pandas/pyarrow/matplotlib loaded:", sorted(heavy) or "none"
        )


if __name__ == "__main__":
    main()
