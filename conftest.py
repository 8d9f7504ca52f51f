"""Doctests of the engine integrations run only where the engine is
installed (the floor CI environment has neither Dask nor PySpark)."""

import importlib.util

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
