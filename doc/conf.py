"""Sphinx configuration of the sklearn-rankmetrics documentation.

Build it with ``.ci/build_docs.sh <venv>`` or, from a venv holding the
``docs`` extra, ``sphinx-build -W --keep-going -b html doc doc/_build/html``.

Everything the build writes into the source tree goes to git-ignored
folders that pytest does not collect: ``generated/`` (autosummary stubs,
gallery back-references) and ``auto_examples/`` (the executed gallery),
plus the API listing ``_api_listing.rst``.  The build needs no network:
intersphinx links to the Python, NumPy, SciPy and scikit-learn docs are
only made when ``SKLEARN_RANKMETRICS_INTERSPHINX=1`` is set (the
inventories are then downloaded); MathJax is loaded by the reader's
browser.
"""

import importlib
import os
from pathlib import Path

from threadpoolctl import threadpool_limits

import sklearn_rankmetrics

HERE = Path(__file__).resolve().parent

# The gallery examples run in this process and fit small models, for which
# an OpenMP thread pool (HistGradientBoostingClassifier) costs far more than
# it gains when the cores are busy: 20 s instead of 0.4 s for one fit of
# the CTR example on two shared cores.  One thread keeps the build fast.
_OPENMP_LIMIT = threadpool_limits(limits=1, user_api="openmp")

# -- Project -----------------------------------------------------------------

project = "sklearn-rankmetrics"
author = "The sklearn-rankmetrics developers"
copyright = "the sklearn-rankmetrics developers"  # noqa: A001 (Sphinx name)
release = sklearn_rankmetrics.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
]

templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    # written below and pasted into api.rst by ``.. include::``
    "_api_listing.rst",
    # included by whats_new.rst
    "whats_new/*.rst",
    # sphinx-gallery's input folder: its pages are built under auto_examples/
    "examples",
]
default_role = "literal"
root_doc = "index"

# -- API listing: every name of sklearn_rankmetrics.__all__ -------------------
#
# api.rst includes _api_listing.rst, written here from __all__ at build time
# (git-ignored), so a function added to the package shows up in the
# reference without editing the docs.  Names are grouped by _api_group.  The
# listing sits next to api.rst so that autosummary puts the stubs it
# generates from it where api.rst's toctree looks for them (generated/).

API_GROUPS = [
    (
        "metrics",
        "Metrics",
        "Ranking metrics: ``metric(y_true, y_score, *, k=...)``.",
    ),
    (
        "scorers",
        "Scorers",
        "Scorers for scikit-learn's model-selection tools.",
    ),
    (
        "reports",
        "Reports, comparisons and plots",
        "Every metric at once, models compared over queries, and Displays.",
    ),
    (
        "estimators",
        "Estimators",
        "Learning-to-rank models in scikit-learn's model-selection tools.",
    ),
    (
        "helpers",
        "Input helpers",
        "Conversions into the input forms the metrics take.",
    ),
    (
        "files",
        "File readers",
        "TREC qrels and run files into the long form.",
    ),
    (
        "datasets",
        "Datasets",
        "Synthetic data generators for examples and tests.",
    ),
    (
        "model_selection",
        "Evaluation protocol",
        "Leakage-safe splitters, strong generalisation for recommenders and "
        "corrected sampled metrics, in "
        ":mod:`sklearn_rankmetrics.model_selection` "
        "(see :ref:`evaluation_protocol`).",
    ),
    (
        "scale",
        "Evaluating at scale",
        "Reports chunk by chunk, on Dask and on Spark (see :ref:`scale`).",
    ),
    (
        "config",
        "Configuration",
        "Package settings (threads), thread-local as scikit-learn's; see "
        ":ref:`performance`.",
    ),
    ("other", "Other", "Other public functions and classes."),
]


REPORTS = (
    "popularity_strata",
    "ranking_report",
    "compare_rankings",
    "RankingComparison",
    "factor_ranking_report",
    "recommendation_table_report",
)


def _api_group(name):
    """Group of a public name of ``sklearn_rankmetrics``."""
    if name in REPORTS or name.endswith("Display"):
        return "reports"
    if name.endswith("Ranker"):
        return "estimators"  # QueryRanker
    if name.endswith("Evaluator"):
        return "scale"
    if name.endswith(("_config", "config_context")):
        return "config"  # config_context, get_config, set_config
    if "scor" in name and not name.endswith(("_at_k", "_score")):
        return "scorers"  # get_scorer, get_scorer_names, make_scoring, ...
    if name.endswith(("_at_k", "_score")):
        return "metrics"
    if name.startswith("read_trec") or name.startswith("trec_"):
        return "files"
    if name.startswith(("make_", "load_", "fetch_")):
        return "datasets"
    if "id" in name or name.startswith(("to_", "from_", "ranked_", "lists_")):
        return "helpers"
    return "other"


# Public submodules whose functions are documented under their own path
# (``sklearn_rankmetrics.datasets.make_click_log``), with their group.
API_SUBMODULES = {
    "datasets": "datasets",
    "model_selection": "model_selection",
    "dask": "scale",
    "spark": "scale",
}


def _write_api_listing():
    groups = {key: [] for key, _, _ in API_GROUPS}
    for name in sorted(sklearn_rankmetrics.__all__):
        groups[_api_group(name)].append(name)
    for submodule, group in API_SUBMODULES.items():
        try:
            module = importlib.import_module(
                f"sklearn_rankmetrics.{submodule}"
            )
        except ImportError:
            continue
        names = getattr(module, "__all__", [])
        groups[group] += [f"{submodule}.{name}" for name in sorted(names)]
    lines = [
        ".. This file is written by doc/conf.py at build time; do not edit.",
        "",
        ".. currentmodule:: sklearn_rankmetrics",
        "",
    ]
    for key, title, blurb in API_GROUPS:
        if not groups[key]:
            continue
        lines += [
            f".. _api_{key}:",
            "",
            title,
            "-" * len(title),
            "",
            blurb,
            "",
            ".. autosummary::",
            "   :toctree: generated/",
            "   :template: base.rst",
            "",
        ]
        lines += [f"   {name}" for name in groups[key]]
        lines.append("")
    target = HERE / "_api_listing.rst"
    text = "\n".join(lines)
    if not target.exists() or target.read_text() != text:
        target.write_text(text)


_write_api_listing()

autosummary_generate = ["_api_listing.rst"]
autodoc_default_options = {"members": False, "inherited-members": False}

# -- numpydoc ----------------------------------------------------------------

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False
numpydoc_xref_param_type = False

# -- intersphinx (offline-safe) ----------------------------------------------

if os.environ.get("SKLEARN_RANKMETRICS_INTERSPHINX") == "1":
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable/", None),
        "scipy": ("https://docs.scipy.org/doc/scipy/", None),
        "sklearn": ("https://scikit-learn.org/stable/", None),
        "matplotlib": ("https://matplotlib.org/stable/", None),
    }
else:
    intersphinx_mapping = {}
intersphinx_timeout = 10

# -- sphinx-gallery ----------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": ["examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("sklearn_rankmetrics",),
    "download_all_examples": False,
    "write_computation_times": False,
    "show_memory": False,
    "min_reported_time": 60,
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "remove_config_comments": True,
}

# -- copybutton: copy the code of ">>>" examples without prompts or output ---

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

# -- HTML --------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"sklearn-rankmetrics {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "navbar_align": "left",
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = []
html_show_sourcelink = False
html_last_updated_fmt = None
