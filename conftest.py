"""Doctests of the engine integrations run only where the engine is
installed (the floor CI environment has neither Dask nor PySpark)."""

import doctest
import importlib.util
import re

import pytest

# module whose doctests need an optional library -> that library
_DOCTEST_NEEDS = {
    "sklearn_rankmetrics.dask": "dask.dataframe",
    "sklearn_rankmetrics.spark": "pyspark",
    "recommenders": "pandas",  # doc/user_guide/recommenders.rst's tables
}


def _installed(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # the parent package is missing
        return False


def pytest_collection_modifyitems(config, items):
    for item in items:
        if not isinstance(item, pytest.DoctestItem):
            continue
        module = item.name.rsplit(".", 1)[0]
        needs = _DOCTEST_NEEDS.get(module)
        if needs is not None and not _installed(needs):
            item.add_marker(pytest.mark.skip(reason=f"{needs} is not installed"))
        _skip_from_missing_import(item)


# Libraries a page of the user guide may import in its last examples (the
# floor CI environment lacks them): from the example importing one that is
# not installed to the end of the page, the examples are skipped.
_OPTIONAL_IN_PAGES = ("pyarrow",)


def _importable(name):
    try:  # (installed is not enough: a pyarrow wheel for NumPy 2 fails)
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def _skip_from_missing_import(item):
    if not item.name.endswith(".rst") or item.dtest is None:
        return
    skipping = False
    for example in item.dtest.examples:
        found = re.match(r"\s*import (\w+)", example.source)
        if found and found.group(1) in _OPTIONAL_IN_PAGES:
            skipping = skipping or not _importable(found.group(1))
        if skipping:
            example.options[doctest.SKIP] = True
