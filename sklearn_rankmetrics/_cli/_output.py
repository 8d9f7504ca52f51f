"""The output writers of ``rankmetrics evaluate``: trec_eval's layout,
tables, JSON and CSV, with or without a comparison."""

import csv
import math

from ._common import _COUNTS

__all__ = []  # private module


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------
def _fmt_trec(m, value):
    if m.metric in _COUNTS:
        return str(int(value))
    return f"{value:6.4f}"


def _print_trec(out, measures, results, per_query):
    for res in results:
        if per_query:
            for j, qid in enumerate(res.query_ids):
                for m in measures:
                    if m.metric in ("runid", "num_q"):
                        continue
                    value = _fmt_trec(m, res.values[m.label][j])
                    out.write(f"{m.label:<22}\t{qid}\t{value}\n")
        for m in measures:
            if m.metric == "runid":
                value = res.name
            else:
                value = _fmt_trec(m, res.summary[m.label])
            out.write(f"{m.label:<22}\tall\t{value}\n")


def _json_number(value):
    return None if math.isnan(value) else value


def _print_json(out, measures, results, per_query):
    import json  # imported when used: not for the parser's start-up

    json.dump(_json_doc(measures, results, per_query), out, indent=2)
    out.write("\n")


def _json_doc(measures, results, per_query):
    doc = {}
    for res in results:
        entry = {
            "all": {
                m.label: _json_number(res.summary[m.label])
                for m in measures
                if m.metric != "runid"
            }
        }
        if per_query:
            entry["queries"] = {
                str(qid): {
                    m.label: _json_number(float(res.values[m.label][j]))
                    for m in measures
                    if m.label in res.values
                }
                for j, qid in enumerate(res.query_ids)
            }
        doc[res.name] = entry
    return doc


def _json_clean(obj):
    """nan -> None (null) in nested dicts and lists: strict JSON."""
    if isinstance(obj, dict):
        return {k: _json_clean(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_clean(v) for v in obj]
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj


def _print_json_comparison(out, measures, results, per_query, comparison):
    """``{"runs": what one run prints, "comparison": to_dict()}``."""
    import json  # imported when used: not for the parser's start-up

    doc = {
        "runs": _json_doc(measures, results, per_query),
        "comparison": _json_clean(comparison.to_dict()),
    }
    json.dump(doc, out, indent=2)
    out.write("\n")


def _print_table_comparison(out, measures, results, per_query, comparison):
    """The comparison table; with -q the side-by-side values first."""
    if per_query:
        _print_table(out, measures, results, per_query)
        out.write("\n")
    out.write(f"{comparison}\n")


_COMPARISON_CSV = (
    "metric model mean ci_low ci_high n_queries reference difference "
    "statistic pvalue pvalue_corrected significant wins_over"
).split()


def _print_csv_comparison(out, measures, results, per_query, comparison):
    """One row per metric and model (mean, interval, the models it beats)
    and, for a model tested against a reference, the test's columns: one
    row per test (every pair: a model appears once per reference)."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_COMPARISON_CSV)
    doc = comparison.to_dict()
    wins = comparison.wins()
    tests = {}
    for t in doc["tests"]:
        tests.setdefault((t["metric"], t["model"]), []).append(t)
    for metric, models in doc["summary"].items():
        for model, stats in models.items():
            base = [
                metric,
                model,
                *(repr(stats[c]) for c in ("mean", "ci_low", "ci_high")),
                stats["n_queries"],
            ]
            beaten = " ".join(wins[model, metric])
            rows = tests.get((metric, model)) or [None]
            for t in rows:
                if t is None:
                    cells = [""] * 6
                else:
                    cells = [
                        t["reference"],
                        *(
                            repr(t[c])
                            for c in (
                                "difference",
                                "statistic",
                                "pvalue",
                                "pvalue_corrected",
                            )
                        ),
                        str(t["significant"]).lower(),
                    ]
                writer.writerow([*base, *cells, beaten])


def _print_csv(out, measures, results, per_query):
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "measure", "query", "value"])
    for res in results:
        if per_query:
            for j, qid in enumerate(res.query_ids):
                for m in measures:
                    if m.label in res.values:
                        writer.writerow(
                            [
                                res.name,
                                m.label,
                                qid,
                                repr(float(res.values[m.label][j])),
                            ]
                        )
        for m in measures:
            if m.metric != "runid":
                writer.writerow([res.name, m.label, "all", repr(res.summary[m.label])])


def _print_table(out, measures, results, per_query):
    """Side by side: one column per run / score column."""
    names = [r.name for r in results]
    rows = []
    for m in measures:
        if m.metric == "runid":
            continue
        rows.append(
            (m.label, "all", [_fmt_cell(m, r.summary[m.label]) for r in results])
        )
    if per_query:
        # every query of any run; "-" where a run does not answer it
        ids = list(dict.fromkeys(q for r in results for q in r.query_ids))
        if len(results) > 1:
            ids.sort()
        where = [{q: j for j, q in enumerate(r.query_ids)} for r in results]
        for qid in ids:
            for m in measures:
                if m.label in results[0].values:
                    cells = [
                        _fmt_cell(m, r.values[m.label][pos[qid]]) if qid in pos else "-"
                        for r, pos in zip(results, where, strict=True)
                    ]
                    rows.append((m.label, str(qid), cells))
    w_m = max([len("measure")] + [len(r[0]) for r in rows])
    w_q = max([len("query")] + [len(r[1]) for r in rows])
    widths = [max(len(n), *(len(r[2][i]) for r in rows)) for i, n in enumerate(names)]
    head = f"{'measure':<{w_m}}  {'query':<{w_q}}"
    head += "".join(f"  {n:>{w}}" for n, w in zip(names, widths, strict=True))
    out.write(head.rstrip() + "\n")
    out.write("-" * len(head.rstrip()) + "\n")
    for label, qid, cells in rows:
        line = f"{label:<{w_m}}  {qid:<{w_q}}"
        line += "".join(f"  {c:>{w}}" for c, w in zip(cells, widths, strict=True))
        out.write(line + "\n")


def _fmt_cell(m, value):
    if math.isnan(value):
        return "nan"
    if m.metric in _COUNTS or m.metric == "num_q":
        return str(int(value))
    return f"{value:.4f}"


_WRITERS = {
    "trec": _print_trec,
    "csv": _print_csv,
    "json": _print_json,
    "table": _print_table,
}
_COMPARISON_WRITERS = {
    "csv": _print_csv_comparison,
    "json": _print_json_comparison,
    "table": _print_table_comparison,
}


def _write_per_query(path, measures, results, query_name):
    labels = [m.label for m in measures if m.label in results[0].values]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow([query_name, "model", *labels])
        for res in results:
            for j, qid in enumerate(res.query_ids):
                row = [float(res.values[lab][j]) for lab in labels]
                writer.writerow([qid, res.name, *map(repr, row)])
