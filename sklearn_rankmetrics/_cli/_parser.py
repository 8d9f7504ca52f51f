"""The argument parser of the command line."""

import argparse
import sys

from .. import __version__
from ._common import prog
from ._measures import _LONG_DEFAULT
from ._output import _WRITERS

__all__ = []  # private module


# ---------------------------------------------------------------------------
# Argument parsing
# ---------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _evaluate_parser(subparsers):
    p = subparsers.add_parser(
        "evaluate",
        help="evaluate TREC runs against qrels, or a table of impressions",
        description=(
            "Evaluate TREC run files against a qrels file (trec_eval's "
            "conventions and output layout), or, with --long, a CSV/TSV/"
            "Parquet table with one row per (query, item) impression."
        ),
        epilog=(
            "Measures: the package's names (ndcg@10, map@100, mrr@10, "
            "precision@5, recall@100, hit_rate@10, f1@10, dcg@10, gauc) or "
            "trec_eval's (map, P.5,10, recall.100, ndcg, ndcg_cut.10, "
            "map_cut.100, recip_rank, success.1,5,10, set_P, set_recall, "
            "set_F, num_q, num_ret, num_rel, num_rel_ret, runid, official, "
            "all_trec). Examples: rankmetrics evaluate -q -m ndcg_cut.10 "
            "qrels.txt run.txt;  rankmetrics evaluate --long clicks.csv "
            "--query-col user --label-col click --score-col model_a model_b"
        ),
    )
    p.add_argument(
        "files",
        nargs="*",
        metavar="QRELS RUN",
        help="a TREC qrels file, then one or more run files",
    )
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        default=[],
        metavar="MEASURE",
        help="a measure to compute (repeat for several); default: trec_eval's "
        "'official' set for TREC files, " + " ".join(_LONG_DEFAULT) + " for --long",
    )
    p.add_argument(
        "-q", "--per-query-output", dest="per_query", action="store_true",
        help="print each query's values too, not only the summary ('all')",
    )  # fmt: skip
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score the qrels' queries the run does not answer as 0 and "
        "average over every query of the qrels (trec_eval -c)",
    )
    p.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="evaluate over the judged documents only: the run's unjudged "
        "documents are removed before any measure (after -M), the judged "
        "ones keep their order (trec_eval -J)",
    )
    p.add_argument(
        "-M",
        "--max-docs",
        type=int,
        metavar="N",
        help="evaluate only the first N documents of each ranking (trec_eval -M)",
    )
    p.add_argument(
        "-l",
        "--level",
        type=int,
        metavar="L",
        help="a document is relevant when its grade is >= L (trec_eval -l; "
        "default: grade >= 1 for TREC files, > 0 for --long); NDCG always "
        "uses the grades as gains",
    )
    p.add_argument(
        "--format",
        choices=sorted(_WRITERS),
        help="output layout; default: trec (trec_eval's) for one TREC run, "
        "table for several runs (the comparison) or --long",
    )
    p.add_argument(
        "--duplicates",
        choices=("error", "first", "last"),
        default="error",
        help="a (query, document) pair twice in a file: stop with an error "
        "(default; trec_eval stops too), or keep its first or last line",
    )
    p.add_argument(
        "--ties",
        choices=("trec_eval", "expected"),
        help="tied scores: break them as trec_eval does (decreasing document "
        "id; default for TREC files) or give the exact expected value over "
        "the orders of tied items (default for --long, where ties are broken "
        "by row order with trec_eval)",
    )
    long = p.add_argument_group("one row per impression (--long)")
    long.add_argument("--long", metavar="FILE", help="a CSV, TSV or Parquet table")
    long.add_argument("--query-col", metavar="COL", help="the query (user) id column")
    long.add_argument("--label-col", metavar="COL", help="the relevance/click column")
    long.add_argument(
        "--score-col",
        nargs="+",
        action="extend",
        metavar="COL",
        help="score column(s), after one flag or repeated; several compare "
        "several models",
    )
    long.add_argument(
        "--weight-col",
        metavar="COL",
        help="row weights (the query weight for ranking metrics; constant "
        "within a query), passed as sample_weight",
    )
    long.add_argument(
        "--no-relevant",
        default="skip",
        metavar="{skip,0,1}",
        help="queries without a relevant row: leave them out (skip, default) "
        "or score them 0 or 1",
    )
    long.add_argument(
        "--chunk-rows",
        type=int,
        default=1_000_000,
        metavar="N",
        help="a table of more than N rows (default 1,000,000) is read and "
        "evaluated N rows at a time, in bounded memory; its rows must then be "
        "grouped by query (e.g. sorted by the query column)",
    )
    long.add_argument(
        "--sep", metavar="CHAR", help="field separator of a text table "
        "(default: tab for .tsv, comma otherwise)",
    )  # fmt: skip
    p.add_argument(
        "--per-query",
        dest="per_query_file",
        metavar="OUT",
        help="also write each query's values, with its id, to the CSV file OUT",
    )
    p.add_argument(
        "--quiet", action="store_true", help="no progress messages on stderr"
    )
    cmp = p.add_argument_group(
        "comparison of several runs or score columns",
        "With several runs or --score-col columns, the table, csv and json "
        "formats give the comparison of compare_rankings: each measure's "
        "mean and bootstrap confidence interval per run, and paired tests "
        "over queries with the p-values corrected across the pairs of each "
        "measure; significant wins are marked.",
    )
    cmp.add_argument(
        "--no-compare",
        action="store_true",
        help="print the values side by side instead of the comparison",
    )
    cmp.add_argument(
        "--baseline",
        metavar="NAME",
        help="test every run against this one (a runid, or the file name "
        "when runids repeat; a score column with --long); default: every pair",
    )
    cmp.add_argument(
        "--test",
        choices=("permutation", "t-test", "wilcoxon"),
        default="permutation",
        help="the paired test over queries (default: permutation, the "
        "paired randomization test of the mean difference)",
    )
    cmp.add_argument(
        "--correction",
        choices=("holm", "bonferroni", "fdr_bh", "none"),
        default="holm",
        help="multiple-comparison correction across the pairs of each "
        "measure (default: holm)",
    )
    cmp.add_argument(
        "--confidence-level",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="level of the bootstrap intervals (default: 0.95)",
    )
    cmp.add_argument(
        "--n-resamples",
        type=int,
        default=9999,
        metavar="N",
        help="random sign vectors of the permutation test (default: 9999)",
    )
    cmp.add_argument(
        "--n-bootstrap",
        type=int,
        default=1999,
        metavar="N",
        help="bootstrap resamples of the intervals (default: 1999)",
    )
    cmp.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the resampling (default: 0, so that the output is reproducible)",
    )
    return p


def _build_parser():
    parser = _Parser(
        prog=prog(),
        description=(
            "Ranking metrics from the command line. Without a subcommand "
            "(or with the demo's options only) it runs the tuning demo."
        ),
    )
    parser.add_argument(
        "--version", action="version", version=f"{prog()} (sklearn-rankmetrics) "
        f"{__version__}",
    )  # fmt: skip
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.add_parser(
        "demo",
        help="tune a click-through-rate model by ranking metrics "
        "(see 'demo --help' for its options)",
        add_help=False,
    )
    _evaluate_parser(subparsers)
    return parser
