"""What every public metric function wears: ``convention=`` (a preset of
options, :mod:`sklearn_rankmetrics._utils._conventions`) and the data-frame
form (columns named with ``label_col=``, ``score_col=``, ...,
:mod:`sklearn_rankmetrics._io._dataframe`), added by :func:`with_convention`.
"""

import functools
import inspect

from .._io._dataframe import frame_metric_arguments, metric_frame_doc
from .._utils._conventions import CONVENTIONS, convention_options

__all__ = []  # private module


_CONVENTION_DOC = """\
    convention : str or None, default=None
        A preset of options reproducing another library's numbers:
        {names}.  Options given explicitly win over the preset's; see the
        user guide's presets page for what each sets and why.

"""


def with_convention(func):
    """Add ``convention=None`` to the keyword options of the metric ``func``."""
    signature = inspect.signature(func)
    accepted = set(signature.parameters) - {"y_true", "y_score"}
    k_param = signature.parameters.get("k")
    default_k = None if k_param is None else k_param.default

    @functools.wraps(func)
    def metric(y_true, y_score=None, *, convention=None, **options):
        if y_score is None or any(key.endswith("_col") for key in options):
            y_true, y_score, options = frame_metric_arguments(
                func, y_true, y_score, options, accepted
            )
        if convention is not None:
            k = options.get("k", default_k)
            preset = convention_options(convention, func.__name__, accepted, k=k)
            if "ignore_ties" in options and "ties" not in options:
                preset.pop("ties", None)  # the explicit tie option wins
            options = {**preset, **options}
        return func(y_true, y_score, **options)

    parameters = list(signature.parameters.values())
    parameters.append(
        inspect.Parameter("convention", inspect.Parameter.KEYWORD_ONLY, default=None)
    )
    metric.__signature__ = signature.replace(parameters=parameters)
    if func.__doc__ and "    Returns\n    -------" in func.__doc__:
        names = ", ".join(f'"{name}"' for name in CONVENTIONS)
        doc = _CONVENTION_DOC.format(names=names) + metric_frame_doc(accepted)
        metric.__doc__ = func.__doc__.replace(
            "    Returns\n    -------", doc + "    Returns\n    -------", 1
        )
    return metric
