"""Start-up cost of the package and of its command line (issue 19).

Runs fresh interpreters (``--repeat`` times each, keeping the fastest) and
prints, in seconds:

* ``import numpy`` (wall): the floor every user pays;
* ``import sklearn_rankmetrics`` and ``import sklearn_rankmetrics._cli``
  (wall), and their cost on top of ``import numpy``;
* ``python -m sklearn_rankmetrics evaluate -m ndcg_cut.10 qrels run`` on a
  one-query TREC pair (wall), on top of ``import numpy``;
* ``import sklearn`` (wall), the baseline the lazy imports avoid;
* the ``-X importtime`` cumulative figure of ``sklearn_rankmetrics`` and
  the heaviest modules it loads.

    python benchmarks/bench_import.py --repeat 5

The machine is shared and loaded: compare the ratios within one run.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    return env


def wall(args, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, *args], check=True, env=_env(), capture_output=True
        )
        best = min(best, time.perf_counter() - start)
    return best


def importtime(module):
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        check=True,
        env=_env(),
        capture_output=True,
        text=True,
    ).stderr
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, cumulative_us, name = line[len("import time:") :].split("|")
        rows.append((int(cumulative_us), int(self_us), name.strip()))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    r = args.repeat

    with tempfile.TemporaryDirectory() as tmp:
        qrels = Path(tmp, "qrels.txt")
        run = Path(tmp, "run.txt")
        qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\n")
        run.write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\nq1 Q0 d3 3 0.1 r\n")
        cli = ["-m", "sklearn_rankmetrics", "evaluate", "-m", "ndcg_cut.10"]
        figures = {
            "python": wall(["-c", "pass"], r),
            "import numpy": wall(["-c", "import numpy"], r),
            "import sklearn": wall(["-c", "import sklearn"], r),
            "import sklearn_rankmetrics": wall(["-c", "import sklearn_rankmetrics"], r),
            "import sklearn_rankmetrics._cli": wall(
                ["-c", "import sklearn_rankmetrics._cli"], r
            ),
            "CLI one-query evaluate": wall([*cli, str(qrels), str(run)], r),
        }
    numpy_s = figures["import numpy"]
    print(f"best of {r} fresh interpreters (wall, s)")
    for name, seconds in figures.items():
        extra = seconds - numpy_s
        print(f"  {name:34s} {seconds:7.3f}   on top of numpy {extra:+7.3f}")
    cli_s = figures["CLI one-query evaluate"] - numpy_s
    sk_s = figures["import sklearn"] - numpy_s
    print(f"CLI start-up on top of numpy / sklearn's own import: {cli_s / sk_s:.2f}")

    rows = importtime("sklearn_rankmetrics._cli")
    total = next(c for c, _, n in rows if n == "sklearn_rankmetrics._cli")
    print(f"-X importtime sklearn_rankmetrics._cli cumulative: {total / 1e6:.3f} s")
    print("heaviest self times:")
    for _, self_us, name in sorted(rows, key=lambda t: -t[1])[:8]:
        print(f"  {self_us / 1e6:7.3f} s  {name}")
    heavy = [n for _, _, n in rows if n.split(".")[0] in {"sklearn", "scipy", "pandas"}]
    print("sklearn/scipy/pandas modules loaded by the CLI:", len(heavy))


if __name__ == "__main__":
    main()
