"""The public report that changes engine with its frame.

:func:`ranking_report` given a Dask or a Spark DataFrame (with the column
keywords) runs :func:`sklearn_rankmetrics.dask.ranking_report` or
:func:`sklearn_rankmetrics.spark.ranking_report`; any other input runs the
in-memory report (:func:`sklearn_rankmetrics._evaluation._report.ranking_report`,
whose signature and documentation this one carries).

The dispatch sits here, above the engine modules, so that no lower layer
names a higher one: the in-memory report (``_evaluation``) and the frame
reader (``_io``) only recognise an engine's frame by the module of its type
(:func:`~sklearn_rankmetrics._io._dataframe.frame_library`), and the
engine's module is imported here, when such a frame is given.
"""

import functools
import inspect

from ._evaluation import _report
from ._io._dataframe import (
    _REPORT_ARRAYS,
    FRAME_KEYWORDS,
    check_frame_call,
    frame_library,
)

__all__ = ["ranking_report"]

_ENGINES = ("dask", "spark")
_SIGNATURE = inspect.signature(_report.ranking_report)


@functools.wraps(_report.ranking_report)
def ranking_report(y_true, y_score=None, **kwargs):
    kind = frame_library(y_true)
    if kind in _ENGINES:
        columns = {c: kwargs.get(c) for c in FRAME_KEYWORDS}
        if y_score is None or any(col is not None for col in columns.values()):
            check_frame_call(y_true, y_score, columns, "ranking_report")
            return _engine_report(kind, y_true, columns, kwargs)
    return _report.ranking_report(y_true, y_score, **kwargs)


def _engine_report(kind, frame, columns, kwargs):
    """``ranking_report`` of a Dask or Spark DataFrame: that engine's
    report, with the same keywords; a TypeError for the arguments it does
    not take."""
    arguments = _SIGNATURE.bind(frame, None, **kwargs)
    arguments.apply_defaults()
    arguments = arguments.arguments
    options = arguments["options"]
    refused = [f"{a}=" for a in _REPORT_ARRAYS if arguments[a] is not None]
    refused += [
        f"{c}=" for c in ("group_col", "item_group_col") if columns[c] is not None
    ]
    if arguments["confidence_level"] is not None:
        refused.append("confidence_level=")
    if refused:
        raise TypeError(
            f"ranking_report on a {kind} DataFrame runs "
            f"sklearn_rankmetrics.{kind}.ranking_report, which does not take "
            f"{', '.join(refused)}; drop them, or collect the rows to pandas "
            "first."
        )
    if kind == "dask":
        from . import dask as engine
    else:
        from . import spark as engine
    engine_kwargs = {c: v for c, v in columns.items() if v is not None}
    for name in ("k", "metrics", "output_dict", "per_query", "digits"):
        engine_kwargs[name] = arguments[name]
    engine_kwargs["tie_break_ascending"] = arguments["tie_break_ascending"]
    for name in ("convention", "min_propensity", "self_normalized"):
        if arguments[name] is not None:
            options = {**options, name: arguments[name]}
    return engine.ranking_report(frame, **engine_kwargs, **options)
