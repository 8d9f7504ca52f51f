"""The argument parser of the command line.

``evaluate``'s options are one table, :data:`_EVALUATE_OPTIONS`: its
groups in the order of ``--help`` and of the usage line, each a title, a
description and ``(flags, add_argument keywords)`` pairs, read once by
:func:`_evaluate_parser`.  Building the parser imports no metric: the
default measures of ``--long`` named in ``-m``'s help come from the
registry when the help is printed (:class:`_LongDefault`), so that
``--help``, ``--version`` and a usage error start without numpy.
"""

import argparse
import sys

from .. import __version__
from ._common import prog
from ._output import _WRITERS

__all__ = []  # private module


class _LongDefault:
    """``--long``'s default measures, as text, read from the registry when
    ``-m``'s help is formatted (``%(long_default)s``), not when the parser
    is built."""

    def __str__(self):
        from ._measures import _LONG_DEFAULT

        return " ".join(_LONG_DEFAULT)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


_EVALUATE = dict(
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

# What the measures and the runs are, and how trec_eval reads them.
_TREC_OPTIONS = (
    (
        ("files",),
        dict(
            nargs="*",
            metavar="QRELS RUN",
            help="a TREC qrels file, then one or more run files",
        ),
    ),
    (
        ("-m", "--measure"),
        dict(
            action="append",
            default=[],  # never changed: argparse appends to a copy
            metavar="MEASURE",
            help="a measure to compute (repeat for several); default: "
            "trec_eval's 'official' set for TREC files, %(long_default)s for "
            "--long",
        ),
    ),
    (
        ("-q", "--per-query-output"),
        dict(
            dest="per_query",
            action="store_true",
            help="print each query's values too, not only the summary ('all')",
        ),
    ),
    (
        ("-c", "--complete"),
        dict(
            action="store_true",
            help="score the qrels' queries the run does not answer as 0 and "
            "average over every query of the qrels (trec_eval -c)",
        ),
    ),
    (
        ("-J", "--judged-only"),
        dict(
            action="store_true",
            help="evaluate over the judged documents only: the run's unjudged "
            "documents are removed before any measure (after -M), the judged "
            "ones keep their order (trec_eval -J)",
        ),
    ),
    (
        ("-M", "--max-docs"),
        dict(
            type=int,
            metavar="N",
            help="evaluate only the first N documents of each ranking (trec_eval -M)",
        ),
    ),
    (
        ("-l", "--level"),
        dict(
            type=int,
            metavar="L",
            help="a document is relevant when its grade is >= L (trec_eval -l; "
            "default: grade >= 1 for TREC files, > 0 for --long); NDCG always "
            "uses the grades as gains",
        ),
    ),
    (
        ("--format",),
        dict(
            choices=sorted(_WRITERS),
            help="output layout; default: trec (trec_eval's) for one TREC run, "
            "table for several runs (the comparison) or --long",
        ),
    ),
    (
        ("--duplicates",),
        dict(
            choices=("error", "first", "last"),
            default="error",
            help="a (query, document) pair twice in a file: stop with an error "
            "(default; trec_eval stops too), or keep its first or last line",
        ),
    ),
    (
        ("--ties",),
        dict(
            choices=("trec_eval", "expected"),
            help="tied scores: break them as trec_eval does (decreasing "
            "document id; default for TREC files) or give the exact expected "
            "value over the orders of tied items (default for --long, where "
            "ties are broken by row order with trec_eval)",
        ),
    ),
    (
        ("--query-weighting",),
        dict(
            choices=("impressions", "uniform", "clicks"),
            help="how GAUC weighs the queries in its mean, in the summary and "
            "the comparison: by the rows its AUC reads (impressions), alike "
            "(uniform) or by their relevant rows (clicks); default: uniform "
            "for TREC files (trec_eval weighs every query alike), impressions "
            "for --long (as group_auc_score)",
        ),
    ),
)

# A table of impressions instead of TREC files.
_LONG_OPTIONS = (
    (("--long",), dict(metavar="FILE", help="a CSV, TSV or Parquet table")),
    (("--query-col",), dict(metavar="COL", help="the query (user) id column")),
    (("--label-col",), dict(metavar="COL", help="the relevance/click column")),
    (
        ("--score-col",),
        dict(
            nargs="+",
            action="extend",
            metavar="COL",
            help="score column(s), after one flag or repeated; several "
            "compare several models",
        ),
    ),
    (
        ("--weight-col",),
        dict(
            metavar="COL",
            help="row weights (the query weight for ranking metrics; constant "
            "within a query), passed as sample_weight",
        ),
    ),
    (
        ("--no-relevant",),
        dict(
            default="skip",
            metavar="{skip,0,1}",
            help="queries without a relevant row: leave them out (skip, "
            "default) or score them 0 or 1",
        ),
    ),
    (
        ("--chunk-rows",),
        dict(
            type=int,
            default=1_000_000,
            metavar="N",
            help="a table of more than N rows (default 1,000,000) is read and "
            "evaluated N rows at a time, in bounded memory; its rows must then "
            "be grouped by query (e.g. sorted by the query column)",
        ),
    ),
    (
        ("--sep",),
        dict(
            metavar="CHAR",
            help="field separator of a text table "
            "(default: tab for .tsv, comma otherwise)",
        ),
    ),
)

# Where the output goes, besides the summary on stdout.
_OUTPUT_OPTIONS = (
    (
        ("--per-query",),
        dict(
            dest="per_query_file",
            metavar="OUT",
            help="also write each query's values, with its id, to the CSV file OUT",
        ),
    ),
    (
        ("--quiet",),
        dict(action="store_true", help="no progress messages on stderr"),
    ),
)

# The comparison of several runs or score columns.
_COMPARISON_OPTIONS = (
    (
        ("--no-compare",),
        dict(
            action="store_true",
            help="print the values side by side instead of the comparison",
        ),
    ),
    (
        ("--baseline",),
        dict(
            metavar="NAME",
            help="test every run against this one (a runid, or the file name "
            "when runids repeat; a score column with --long); default: every "
            "pair",
        ),
    ),
    (
        ("--test",),
        dict(
            choices=("permutation", "t-test", "wilcoxon"),
            default="permutation",
            help="the paired test over queries (default: permutation, the "
            "paired randomization test of the mean difference)",
        ),
    ),
    (
        ("--correction",),
        dict(
            choices=("holm", "bonferroni", "fdr_bh", "none"),
            default="holm",
            help="multiple-comparison correction across the pairs of each "
            "measure (default: holm)",
        ),
    ),
    (
        ("--confidence-level",),
        dict(
            type=float,
            default=0.95,
            metavar="LEVEL",
            help="level of the bootstrap intervals (default: 0.95)",
        ),
    ),
    (
        ("--n-resamples",),
        dict(
            type=int,
            default=9999,
            metavar="N",
            help="random sign vectors of the permutation test (default: 9999)",
        ),
    ),
    (
        ("--n-bootstrap",),
        dict(
            type=int,
            default=1999,
            metavar="N",
            help="bootstrap resamples of the intervals (default: 1999)",
        ),
    ),
    (
        ("--seed",),
        dict(
            type=int,
            default=0,
            help="seed of the resampling (default: 0, so that the output is "
            "reproducible)",
        ),
    ),
)

# (group title, group description, options): None is the parser's own
# options; the order is that of --help and of the usage line
_EVALUATE_OPTIONS = (
    (None, None, _TREC_OPTIONS),
    ("one row per impression (--long)", None, _LONG_OPTIONS),
    (None, None, _OUTPUT_OPTIONS),
    (
        "comparison of several runs or score columns",
        "With several runs or --score-col columns, the table, csv and json "
        "formats give the comparison of compare_rankings: each measure's "
        "mean and bootstrap confidence interval per run, and paired tests "
        "over queries with the p-values corrected across the pairs of each "
        "measure; significant wins are marked.",
        _COMPARISON_OPTIONS,
    ),
)


def _evaluate_parser(subparsers):
    """The ``evaluate`` subcommand, its options read from the table."""
    parser = subparsers.add_parser("evaluate", **_EVALUATE)
    for title, description, options in _EVALUATE_OPTIONS:
        group = parser
        if title is not None:
            group = parser.add_argument_group(title, description)
        for flags, keywords in options:
            action = group.add_argument(*flags, **keywords)
            if flags == ("-m", "--measure"):  # read when the help is printed
                action.long_default = _LongDefault()
    return parser


def _build_parser():
    parser = _Parser(
        prog=prog(),
        description=(
            "Ranking metrics from the command line. Without a subcommand "
            "(or with the demo's options only) it runs the tuning demo."
        ),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"{prog()} (sklearn-rankmetrics) {__version__}",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.add_parser(
        "demo",
        help="tune a click-through-rate model by ranking metrics "
        "(see 'demo --help' for its options)",
        add_help=False,
    )
    _evaluate_parser(subparsers)
    return parser
